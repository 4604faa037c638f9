/**
 * @module Chart specs (vega-lite), built by pure functions from run figures. Pages render them to SVG
 * at build time (see `svg.ts`); the compare page renders `compareSpec` in the browser.
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
const AGGREGATE_COLOR = "#1f6fb4";
const PER_STREAM_COLOR = "#d0632a";
const CONFIG = {
  font: "system-ui, sans-serif",
  axis: { labelFontSize: 11, titleFontSize: 12 },
  view: { stroke: null },
};

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
  const line = (color: string) => ({ type: "line" as const, color, point: { filled: true, color, size: 50 } });
  const spec = {
    $schema: SCHEMA,
    title: input.title,
    description: `Aggregate output tokens per second (left axis) and per-stream output tokens per second, median (right axis), against concurrency on a log-2 axis${input.knee ? `; the knee is at concurrency ${input.knee}` : ""}.`,
    width: 520,
    height: 260,
    config: CONFIG,
    resolve: { scale: { y: "independent" } },
    layer: [
      {
        data: { values: aggregate },
        mark: line(AGGREGATE_COLOR),
        encoding: {
          x,
          y: {
            field: "value",
            type: "quantitative",
            title: AGGREGATE_TITLE,
            axis: { titleColor: AGGREGATE_COLOR, orient: "left" },
          },
        },
      },
      {
        data: { values: perStream },
        mark: line(PER_STREAM_COLOR),
        encoding: {
          x,
          y: {
            field: "value",
            type: "quantitative",
            title: PER_STREAM_TITLE,
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
                { mark: { type: "rule" as const, strokeDash: [4, 4], color: "#555" }, encoding: { x } },
                {
                  mark: { type: "text" as const, align: "left" as const, dx: 4, dy: -120, color: "#555" },
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

/** TTFT and end-to-end latency p50/p95/p99 against concurrency, side by side. */
export function latencySpec(input: { title: string; levels: LevelPoint[] }): TopLevelSpec {
  const x = concurrencyAxis(input.levels.map((l) => l.concurrency));
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
    mark: { type: "line" as const, point: true },
    encoding: {
      x,
      y: { field: "value", type: "quantitative" as const, title: "ms", scale: { type: "log" as const } },
      color: {
        field: "percentile",
        type: "nominal" as const,
        scale: { domain: [...PERCENTILES], range: ["#1f6fb4", "#d0632a", "#8c2d9e"] },
      },
    },
  });
  return {
    $schema: SCHEMA,
    title: input.title,
    description:
      "Time to first token and end-to-end latency, p50, p95 and p99 in milliseconds (log axis), against concurrency on a log-2 axis.",
    config: CONFIG,
    hconcat: [
      panel("time to first token", (l, p) => l[`ttft${p.toUpperCase() as "P50"}Ms`]),
      panel("end-to-end", (l, p) => l[`e2e${p.toUpperCase() as "P50"}Ms`]),
    ],
  } as TopLevelSpec;
}

/** Headline figures over time: peak aggregate and single-stream tok/s, one panel each. */
export function historySpec(input: { title: string; points: HistoryPoint[] }): TopLevelSpec {
  const rows = (pick: (p: HistoryPoint) => number | null) =>
    present(
      input.points.map((p) => ({ startedAt: p.startedAt, valid: p.valid && p.status === "complete", value: pick(p) })),
    );
  const panel = (title: string, color: string, pick: (p: HistoryPoint) => number | null) => ({
    title,
    width: 520,
    height: 110,
    data: { values: rows(pick) },
    mark: { type: "line" as const, color, interpolate: "monotone" as const },
    encoding: {
      x: { field: "startedAt", type: "temporal" as const, title: null, scale: { type: "utc" as const } },
      y: { field: "value", type: "quantitative" as const, title: "tok/s", scale: { zero: false } },
    },
  });
  return {
    $schema: SCHEMA,
    title: input.title,
    description:
      "Peak aggregate output tokens per second and single-stream output tokens per second of every run, over time.",
    config: CONFIG,
    vconcat: [
      panel(
        figureHeading("peakAggregateOutputTokensPerSecond"),
        AGGREGATE_COLOR,
        (p) => p.peakAggregateOutputTokensPerSecond,
      ),
      panel(
        figureHeading("singleStreamOutputTokensPerSecond"),
        PER_STREAM_COLOR,
        (p) => p.singleStreamOutputTokensPerSecond,
      ),
    ],
  } as TopLevelSpec;
}

export type CompareMeasure = "aggregate" | "perStream";

/** Several targets' curves overlaid, colored by target; rows carry `targetId` so a page can filter them. */
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
  return {
    $schema: SCHEMA,
    title,
    description: `${title} against concurrency on a log-2 axis, one line per target.`,
    width: 560,
    height: 300,
    config: CONFIG,
    data: { values },
    mark: { type: "line", point: true },
    encoding: {
      x: concurrencyAxis(ladder),
      y: { field: "value", type: "quantitative", title },
      color: {
        field: "target",
        type: "nominal",
        title: "target",
        legend: { orient: "bottom", columns: 1, labelLimit: 400 },
      },
    },
  } as TopLevelSpec;
}
