/**
 * @module Chart specs (vega-lite), built by pure functions from run figures. Pages render them to SVG
 * at build time (see `svg.ts`); the compare page renders `compareSpec` in the browser.
 *
 * Honesty rules every spec follows: measured points are drawn as marks and joined by straight
 * segments only (no smoothing that invents values between them); throughput axes start at zero, so
 * a run-to-run wobble of a few percent looks like a few percent of the bar it sits on; latency uses
 * a log axis because its percentiles span orders of magnitude, and a log axis shows ratios evenly.
 * Colours are CSS variables (`var(--agg)`...) that the page defines for light and dark mode, and
 * every series also differs by marker shape, so colour never carries meaning alone.
 */
import { figureHeading } from "@kneeboard/core/labels";
import type { StandingLevel } from "@kneeboard/core/standing";
import type { TopLevelSpec } from "vega-lite";
import type { HistoryPoint } from "./site-data.ts";

/** Axis titles from the core's one table of figure labels, with what each figure counts. */
const AGGREGATE_TITLE = `${figureHeading("aggregateOutputTokensPerSecond")} (all streams)`;
const PER_STREAM_TITLE = `${figureHeading("perStreamOutputTokensPerSecondP50")} (one user)`;

/** The per-level figures a chart needs (a subset of the index's LevelFigures). */
export interface LevelPoint {
  concurrency: number;
  aggregateOutputTokensPerSecond: number | null;
  perStreamOutputTokensPerSecondP50: number | null;
  ttftP50Ms: number | null;
  ttftP95Ms: number | null;
  ttftP99Ms: number | null;
  e2eP50Ms: number | null;
  e2eP95Ms: number | null;
  e2eP99Ms: number | null;
  valid: boolean;
}

const SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";
/** Series colours and chart ink: CSS variables, so one SVG follows the page's light or dark scheme. */
export const CHART_COLORS = {
  aggregate: "var(--agg)",
  perStream: "var(--ps)",
  third: "var(--c3)",
  ink: "var(--fg)",
  muted: "var(--muted)",
  grid: "var(--grid)",
  band: "var(--band)",
} as const;
const AGGREGATE_COLOR = CHART_COLORS.aggregate;
const PER_STREAM_COLOR = CHART_COLORS.perStream;
/** Shapes that tell series apart without colour. */
const AGGREGATE_SHAPE = "circle";
const PER_STREAM_SHAPE = "square";
/** The shared chart theme: transparent background, ink and grid from the page's CSS variables. */
export const CONFIG = {
  font: "system-ui, sans-serif",
  background: "transparent",
  axis: {
    labelFontSize: 11,
    titleFontSize: 12,
    labelColor: CHART_COLORS.ink,
    titleColor: CHART_COLORS.ink,
    domainColor: CHART_COLORS.muted,
    tickColor: CHART_COLORS.muted,
    gridColor: CHART_COLORS.grid,
  },
  legend: { labelColor: CHART_COLORS.ink, titleColor: CHART_COLORS.ink, labelFontSize: 11 },
  title: { color: CHART_COLORS.ink, subtitleColor: CHART_COLORS.muted },
  header: { labelColor: CHART_COLORS.ink, titleColor: CHART_COLORS.ink },
  text: { color: CHART_COLORS.ink },
  view: { stroke: null },
};

/** A tok/s axis from zero (see the module note): the bar a wobble is measured against is all of it. */
const THROUGHPUT_SCALE = { zero: true, nice: true } as const;

/** Concurrency on a log-2 axis, ticks at the measured levels. */
function concurrencyAxis(levels: number[]) {
  return {
    field: "concurrency",
    type: "quantitative" as const,
    title: "concurrency (requests in flight)",
    scale: { type: "log" as const, base: 2 },
    axis: { values: levels, format: "d" },
  };
}

function present<T>(rows: (T & { value: number | null })[]): (T & { value: number })[] {
  return rows.filter((r): r is T & { value: number } => r.value !== null && Number.isFinite(r.value));
}

/**
 * Per-stream tok/s falling and aggregate tok/s rising against concurrency, each on its own y axis
 * (they differ by the concurrency factor), with the knee marked when there is one.
 */
export function throughputCurvesSpec(input: {
  title: string;
  levels: LevelPoint[];
  knee: number | null;
}): TopLevelSpec {
  const ladder = input.levels.map((l) => l.concurrency);
  const x = concurrencyAxis(ladder);
  const aggregate = present(
    input.levels.map((l) => ({ concurrency: l.concurrency, value: l.aggregateOutputTokensPerSecond })),
  );
  const perStream = present(
    input.levels.map((l) => ({ concurrency: l.concurrency, value: l.perStreamOutputTokensPerSecondP50 })),
  );
  const line = (color: string, shape: string) => ({
    type: "line" as const,
    interpolate: "linear" as const,
    color,
    point: { filled: true, color, size: 50, shape },
  });
  const spec = {
    $schema: SCHEMA,
    title: input.title,
    description: `Aggregate output tokens per second (circles, left axis) and per-stream output tokens per second, median (squares, right axis), both axes from zero, against concurrency on a log-2 axis${input.knee ? `; the knee is at concurrency ${input.knee}` : ""}.`,
    width: 520,
    height: 260,
    config: CONFIG,
    resolve: { scale: { y: "independent" } },
    layer: [
      {
        data: { values: aggregate },
        mark: line(AGGREGATE_COLOR, AGGREGATE_SHAPE),
        encoding: {
          x,
          y: {
            field: "value",
            type: "quantitative",
            title: `● ${AGGREGATE_TITLE}`,
            scale: THROUGHPUT_SCALE,
            axis: { titleColor: AGGREGATE_COLOR, orient: "left" },
          },
        },
      },
      {
        data: { values: perStream },
        mark: line(PER_STREAM_COLOR, PER_STREAM_SHAPE),
        encoding: {
          x,
          y: {
            field: "value",
            type: "quantitative",
            title: `■ ${PER_STREAM_TITLE}`,
            scale: THROUGHPUT_SCALE,
            axis: { titleColor: PER_STREAM_COLOR, orient: "right" },
          },
        },
      },
      ...(input.knee === null
        ? []
        : [
            {
              data: { values: [{ concurrency: input.knee, label: `knee: ${input.knee}` }] },
              layer: [
                { mark: { type: "rule" as const, strokeDash: [4, 4], color: CHART_COLORS.muted }, encoding: { x } },
                {
                  mark: { type: "text" as const, align: "left" as const, dx: 4, dy: -120, color: CHART_COLORS.ink },
                  encoding: { x, text: { field: "label", type: "nominal" as const } },
                },
              ],
            },
          ]),
    ],
  };
  return spec as TopLevelSpec;
}

/**
 * The standing's median curves against concurrency, each with a band for the interval bounding its
 * median: aggregate tok/s (left axis) and per-stream tok/s p50 (right axis). Only ranked levels (valid
 * in at least half of the runs) are drawn, as only they give the peak and the knee.
 */
export function standingCurvesSpec(input: {
  title: string;
  levels: StandingLevel[];
  knee: number | null;
}): TopLevelSpec {
  const ranked = input.levels.filter((l) => l.ranked);
  const x = concurrencyAxis(ranked.map((l) => l.concurrency));
  const rows = (pick: (l: StandingLevel) => StandingLevel["aggregateOutputTokensPerSecond"]) =>
    ranked.flatMap((l) => {
      const e = pick(l);
      return e ? [{ concurrency: l.concurrency, median: e.median, low: e.low, high: e.high, n: e.n }] : [];
    });
  const measure = (values: ReturnType<typeof rows>, color: string, title: string, orient: "left" | "right") => ({
    data: { values },
    layer: [
      {
        mark: { type: "area" as const, color, opacity: 0.18 },
        encoding: {
          x,
          y: { field: "low", type: "quantitative" as const, title, axis: { titleColor: color, orient } },
          y2: { field: "high" },
        },
      },
      {
        mark: { type: "line" as const, color, point: { filled: true, color, size: 50 } },
        encoding: {
          x,
          y: { field: "median", type: "quantitative" as const },
          tooltip: [
            { field: "concurrency", type: "quantitative" as const },
            { field: "median", type: "quantitative" as const, format: ",.1f" },
            { field: "low", type: "quantitative" as const, format: ",.1f" },
            { field: "high", type: "quantitative" as const, format: ",.1f" },
            { field: "n", type: "quantitative" as const, title: "runs" },
          ],
        },
      },
    ],
  });
  return {
    $schema: SCHEMA,
    title: input.title,
    description: `Median aggregate output tokens per second (left axis) and median per-stream output tokens per second (right axis) over recent runs, against concurrency on a log-2 axis; shaded bands show the interval bounding each median${input.knee ? `; the knee of the median curve is at concurrency ${input.knee}` : ""}.`,
    width: 520,
    height: 260,
    config: CONFIG,
    resolve: { scale: { y: "independent" } },
    layer: [
      measure(
        rows((l) => l.aggregateOutputTokensPerSecond),
        AGGREGATE_COLOR,
        "aggregate tok/s (all streams), median",
        "left",
      ),
      measure(
        rows((l) => l.perStreamOutputTokensPerSecondP50),
        PER_STREAM_COLOR,
        "per-stream tok/s (p50, one user), median",
        "right",
      ),
      ...(input.knee === null
        ? []
        : [
            {
              data: { values: [{ concurrency: input.knee, label: `knee: ${input.knee}` }] },
              layer: [
                { mark: { type: "rule" as const, strokeDash: [4, 4], color: "#555" }, encoding: { x } },
                {
                  mark: { type: "text" as const, align: "left" as const, dx: 4, dy: -120, color: "#555" },
                  encoding: { x, text: { field: "label", type: "nominal" as const } },
                },
              ],
            },
          ]),
    ],
  } as TopLevelSpec;
}

const PERCENTILES = ["p50", "p95", "p99"] as const;

/** TTFT and end-to-end latency p50/p95/p99 against concurrency, side by side; percentiles differ by colour, shape and dash. */
export function latencySpec(input: { title: string; levels: LevelPoint[] }): TopLevelSpec {
  const x = concurrencyAxis(input.levels.map((l) => l.concurrency));
  const percentile = (range: unknown[]) => ({
    field: "percentile",
    type: "nominal" as const,
    title: "percentile",
    scale: { domain: [...PERCENTILES], range },
  });
  const panel = (name: string, pick: (l: LevelPoint, p: (typeof PERCENTILES)[number]) => number | null) => ({
    title: name,
    width: 250,
    height: 200,
    data: {
      values: present(
        input.levels.flatMap((l) =>
          PERCENTILES.map((p) => ({ concurrency: l.concurrency, percentile: p, value: pick(l, p) })),
        ),
      ),
    },
    mark: { type: "line" as const, interpolate: "linear" as const, point: { filled: true, size: 40 } },
    encoding: {
      x,
      y: { field: "value", type: "quantitative" as const, title: "ms (log axis)", scale: { type: "log" as const } },
      color: percentile([CHART_COLORS.aggregate, CHART_COLORS.perStream, CHART_COLORS.third]),
      shape: percentile(["circle", "square", "triangle-up"]),
      strokeDash: percentile([
        [1, 0],
        [6, 3],
        [2, 2],
      ]),
    },
  });
  return {
    $schema: SCHEMA,
    title: input.title,
    description:
      "Time to first token and end-to-end latency, p50 (circles, solid), p95 (squares, dashed) and p99 (triangles, dotted) in milliseconds on a log axis, against concurrency on a log-2 axis.",
    config: CONFIG,
    hconcat: [
      panel("time to first token", (l, p) => l[`ttft${p.toUpperCase() as "P50"}Ms`]),
      panel("end-to-end", (l, p) => l[`e2e${p.toUpperCase() as "P50"}Ms`]),
    ],
  } as TopLevelSpec;
}

/** Where a band around a history series lies: its low and high at a time (e.g. a standing interval over its window). */
export interface BandPoint {
  startedAt: string;
  low: number;
  high: number;
}

/** Optional bands for the history panels; a constant interval is two points (window start and end). */
export interface HistoryBands {
  peakAggregate?: BandPoint[];
  singleStream?: BandPoint[];
}

const DAY_MS = 86_400_000;

/**
 * A UTC time axis whose labels always carry the date: days when the runs span a few days or more,
 * date and time within a short span (a label `:45` alone says nothing about when).
 */
export function timeAxis(times: string[]) {
  const ms = times.map((t) => Date.parse(t)).filter(Number.isFinite);
  const spanMs = ms.length ? Math.max(...ms) - Math.min(...ms) : 0;
  const days = spanMs / DAY_MS;
  const axis =
    days >= 3
      ? { format: "%Y-%m-%d", tickCount: { interval: "day" as const, step: Math.max(1, Math.ceil(days / 4)) } }
      : { format: "%Y-%m-%d %H:%M", tickCount: 3 };
  return {
    field: "startedAt",
    type: "temporal" as const,
    title: "run started (UTC)",
    scale: { type: "utc" as const },
    axis: { ...axis, labelAngle: 0, labelOverlap: true },
  };
}

/** Run states as point shapes: a partial or invalid run stays visible, told apart by its marker. */
const RUN_STATES = ["complete and valid", "partial or invalid"] as const;

/**
 * Headline figures over time, one panel each: every run a point, joined by straight segments, on a
 * zero-based axis, with an optional band (the standing interval) behind the points.
 */
export function historySpec(input: { title: string; points: HistoryPoint[]; bands?: HistoryBands }): TopLevelSpec {
  const rows = (pick: (p: HistoryPoint) => number | null) =>
    present(
      input.points.map((p) => ({
        startedAt: p.startedAt,
        run: p.valid && p.status === "complete" ? RUN_STATES[0] : RUN_STATES[1],
        value: pick(p),
      })),
    );
  const x = timeAxis([
    ...input.points.map((p) => p.startedAt),
    ...[...(input.bands?.peakAggregate ?? []), ...(input.bands?.singleStream ?? [])].map((b) => b.startedAt),
  ]);
  // Smaller markers when runs crowd the panel, so neighbours stay apart.
  const pointSize = input.points.length > 60 ? 12 : 45;
  const panel = (
    title: string,
    color: string,
    pick: (p: HistoryPoint) => number | null,
    band: BandPoint[] | undefined,
  ) => {
    const y = { field: "value", type: "quantitative" as const, title: "tok/s", scale: THROUGHPUT_SCALE };
    return {
      title,
      width: 520,
      height: 120,
      layer: [
        ...(band?.length
          ? [
              {
                data: { values: band },
                mark: { type: "area" as const, color: CHART_COLORS.band, interpolate: "linear" as const },
                encoding: {
                  x,
                  y: { ...y, field: "low" },
                  y2: { field: "high" },
                },
              },
            ]
          : []),
        {
          data: { values: rows(pick) },
          layer: [
            { mark: { type: "line" as const, color, interpolate: "linear" as const }, encoding: { x, y } },
            {
              // No per-point ARIA: the SVG is one named image with the runs table beside it, and a
              // label per point would make a long history several times heavier.
              mark: { type: "point" as const, color, filled: true, size: pointSize, opacity: 1, aria: false },
              encoding: {
                x,
                y,
                shape: {
                  field: "run",
                  type: "nominal" as const,
                  title: "run",
                  scale: { domain: [...RUN_STATES], range: ["circle", "cross"] },
                  legend: { orient: "bottom" as const, direction: "horizontal" as const },
                },
              },
            },
          ],
        },
      ],
    };
  };
  return {
    $schema: SCHEMA,
    title: input.title,
    description: `Peak aggregate output tokens per second and single-stream output tokens per second of every run, over time: one point per run (a cross when the run was partial or invalid), joined by straight lines, on axes from zero${input.bands ? ", with the standing interval as a shaded band" : ""}.`,
    config: CONFIG,
    resolve: { scale: { shape: "shared" } },
    vconcat: [
      panel(
        figureHeading("peakAggregateOutputTokensPerSecond"),
        AGGREGATE_COLOR,
        (p) => p.peakAggregateOutputTokensPerSecond,
        input.bands?.peakAggregate,
      ),
      panel(
        figureHeading("singleStreamOutputTokensPerSecond"),
        PER_STREAM_COLOR,
        (p) => p.singleStreamOutputTokensPerSecond,
        input.bands?.singleStream,
      ),
    ],
  } as TopLevelSpec;
}

export type CompareMeasure = "aggregate" | "perStream";

/** Several targets' curves overlaid, told apart by colour and shape; rows carry `targetId` so a page can filter them. */
export function compareSpec(input: {
  series: { targetId: string; label: string; levels: LevelPoint[] }[];
  measure: CompareMeasure;
}): TopLevelSpec {
  const ladder = [...new Set(input.series.flatMap((s) => s.levels.map((l) => l.concurrency)))].sort((a, b) => a - b);
  const values = present(
    input.series.flatMap((s) =>
      s.levels.map((l) => ({
        targetId: s.targetId,
        target: s.label,
        concurrency: l.concurrency,
        value: input.measure === "aggregate" ? l.aggregateOutputTokensPerSecond : l.perStreamOutputTokensPerSecondP50,
      })),
    ),
  );
  const title = input.measure === "aggregate" ? AGGREGATE_TITLE : PER_STREAM_TITLE;
  const legend = { orient: "bottom" as const, columns: 1, labelLimit: 400 };
  return {
    $schema: SCHEMA,
    title,
    description: `${title} against concurrency on a log-2 axis, y axis from zero, one line per target (colour and marker shape per target).`,
    width: 560,
    height: 300,
    config: CONFIG,
    data: { values },
    mark: { type: "line", interpolate: "linear", point: { filled: true, size: 45 } },
    encoding: {
      x: concurrencyAxis(ladder),
      y: { field: "value", type: "quantitative", title, scale: THROUGHPUT_SCALE },
      color: { field: "target", type: "nominal", title: "target", legend },
      shape: { field: "target", type: "nominal", title: "target", legend },
    },
  } as TopLevelSpec;
}

/**
 * The throughput-interactivity trade-off: per-stream tok/s p50 (x, what one user gets) against
 * aggregate tok/s (y, what the fleet gets), one line per target through its levels in order of
 * concurrency, each point labelled with its concurrency; both axes from zero. Invalid levels are left out.
 */
export function tradeoffSpec(input: {
  title: string;
  series: { targetId: string; label: string; levels: LevelPoint[] }[];
}): TopLevelSpec {
  const values = input.series.flatMap((s) =>
    s.levels
      .filter(
        (l) =>
          l.valid &&
          l.aggregateOutputTokensPerSecond !== null &&
          l.perStreamOutputTokensPerSecondP50 !== null &&
          Number.isFinite(l.aggregateOutputTokensPerSecond) &&
          Number.isFinite(l.perStreamOutputTokensPerSecondP50),
      )
      .map((l) => ({
        targetId: s.targetId,
        target: s.label,
        concurrency: l.concurrency,
        perStream: l.perStreamOutputTokensPerSecondP50 as number,
        aggregate: l.aggregateOutputTokensPerSecond as number,
        label: `N=${l.concurrency}`,
      })),
  );
  const x = { field: "perStream", type: "quantitative" as const, title: PER_STREAM_TITLE, scale: THROUGHPUT_SCALE };
  const y = { field: "aggregate", type: "quantitative" as const, title: AGGREGATE_TITLE, scale: THROUGHPUT_SCALE };
  const several = input.series.length > 1;
  const legend = { orient: "bottom" as const, columns: 1, labelLimit: 400 };
  const byTarget = several
    ? {
        color: { field: "target", type: "nominal" as const, title: "target", legend },
        shape: { field: "target", type: "nominal" as const, title: "target", legend },
      }
    : {};
  return {
    $schema: SCHEMA,
    title: input.title,
    description: `Aggregate output tokens per second (y) against per-stream output tokens per second, median (x), both axes from zero; ${several ? "one line per target (colour and marker shape per target)" : "one line"} through its concurrency levels, each point labelled with its concurrency N.`,
    width: 520,
    height: 300,
    config: CONFIG,
    data: { values },
    layer: [
      {
        mark: {
          type: "line",
          interpolate: "linear",
          ...(several ? {} : { color: AGGREGATE_COLOR }),
          point: { filled: true, size: 50, ...(several ? {} : { color: AGGREGATE_COLOR, shape: AGGREGATE_SHAPE }) },
        },
        encoding: { x, y, order: { field: "concurrency", type: "quantitative" }, ...byTarget },
      },
      {
        mark: { type: "text", align: "left", dx: 6, dy: -6, fontSize: 10, color: CHART_COLORS.ink },
        encoding: { x, y, text: { field: "label", type: "nominal" } },
      },
    ],
  } as TopLevelSpec;
}
