/**
 * @module The charts of levels against their load axis (concurrency, offered rate, any axis in `AXES`):
 * throughput curves, latency percentiles, several targets' or routes' curves overlaid, and the
 * standing's median curves. One spec per picture: the axis entry says what differs.
 */
import { loadAxis, loadPosition } from "@kneeboard/core/run";
import type { StandingLevel } from "@kneeboard/core/standing";
import type { TopLevelSpec } from "vega-lite";
import {
  AXES,
  drawn,
  type LevelFigure,
  type LevelPoint,
  type LevelSeries,
  type LoadAxis,
  loadAxisEncoding,
  MEASURES,
  type MeasureKey,
  type Percentile,
} from "./axis.ts";
import { type KneeColors, kneeLayer } from "./knee.ts";
import {
  CHART_COLORS,
  CONFIG,
  FONT_SIZE,
  PANEL_HEIGHT,
  PLOT_HEIGHT,
  PLOT_WIDTH,
  present,
  SCHEMA,
  SERIES_LEGEND,
  THROUGHPUT_SCALE,
} from "./shared.ts";

/** How the first, second and third series of a chart are told apart: colour, marker shape, dash. */
const STYLES = [
  { color: CHART_COLORS.aggregate, shape: "circle", words: "circles", dash: [1, 0], dashWords: "solid" },
  { color: CHART_COLORS.perStream, shape: "square", words: "squares", dash: [6, 3], dashWords: "dashed" },
  { color: CHART_COLORS.third, shape: "triangle-up", words: "triangles", dash: [2, 2], dashWords: "dotted" },
] as const;
const style = (i: number) => STYLES[i % STYLES.length] as (typeof STYLES)[number];
const capital = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}`;

/**
 * The axis's two throughputs of one run against its load: on one shared y axis with a legend where the
 * axis entry says they share one (aggregate and goodput), else each on its own y axis (aggregate rising,
 * per-stream falling, apart by the concurrency factor); the knee marked when there is one.
 */
export function throughputCurvesSpec(input: {
  title: string;
  axis: LoadAxis;
  levels: LevelPoint[];
  knee: number | null;
}): TopLevelSpec {
  const a = AXES[input.axis];
  const levels = drawn(input.axis, input.levels);
  const x = loadAxisEncoding(
    input.axis,
    levels.map((l) => l.position),
  );
  const measures = a.throughput.measures.map((k) => ({ key: k, ...MEASURES[k] }));
  const rows = (figure: (typeof measures)[number]["figure"]) =>
    present(
      levels.map((l) => ({
        [input.axis]: l.position,
        value: l[figure],
        ...(l.probeOrder === null ? {} : { probe: l.probeOrder }),
      })),
    );
  const probed = levels.some((l) => l.probeOrder !== null);
  const kneeWords = `${input.knee === null ? "" : `; the knee is at ${a.label(input.knee)}`}${probed ? PROBE_WORDS : ""}`;
  if (a.throughput.sharedY) {
    const domain = measures.map((m) => m.key);
    const legend = (range: unknown[]) => ({
      field: "measure",
      type: "nominal" as const,
      title: a.throughput.legend,
      scale: { domain, range },
      legend: { orient: "bottom" as const },
    });
    const said = measures.map((m, i) => `${m.words} (${style(i).words})`).join(" and ");
    return {
      $schema: SCHEMA,
      title: input.title,
      description: `${capital(said)}, ${a.against}; y axis from zero${kneeWords}.`,
      width: PLOT_WIDTH,
      height: PLOT_HEIGHT,
      config: CONFIG,
      layer: [
        {
          data: { values: measures.flatMap((m) => rows(m.figure).map((r) => ({ ...r, measure: m.key }))) },
          mark: { type: "line", interpolate: "linear", point: { filled: true, size: 50 } },
          encoding: {
            x,
            y: { field: "value", type: "quantitative", title: a.throughput.legend, scale: THROUGHPUT_SCALE },
            color: legend(measures.map((_, i) => style(i).color)),
            shape: legend(measures.map((_, i) => style(i).shape)),
          },
        },
        // The first measure's points carry the probe order (the second's sit under them, at the same load).
        ...(probed
          ? [
              {
                data: { values: rows(MEASURES[a.throughput.measures[0]].figure) },
                ...probeLabels(x, { field: "value", type: "quantitative" }, -9),
              },
            ]
          : []),
        ...kneeLayer(input.knee, x),
      ],
    } as TopLevelSpec;
  }
  const sides = ["left", "right"] as const;
  const marks = ["●", "■"];
  const said = measures.map((m, i) => `${m.words} (${style(i).words}, ${sides[i]} axis)`).join(" and ");
  return {
    $schema: SCHEMA,
    title: input.title,
    description: `${capital(said)}, both axes from zero, ${a.against}${kneeWords}.`,
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
    config: CONFIG,
    resolve: { scale: { y: "independent" } },
    layer: [
      ...measures.map((m, i) => {
        const line = {
          type: "line" as const,
          interpolate: "linear" as const,
          color: style(i).color,
          point: { filled: true, color: style(i).color, size: 50, shape: style(i).shape },
        };
        const y = {
          field: "value",
          type: "quantitative" as const,
          title: `${marks[i]} ${m.title}`,
          scale: THROUGHPUT_SCALE,
          axis: { titleColor: style(i).color, orient: sides[i] },
        };
        const values = rows(m.figure);
        // Probed levels: the line and its points' order labels share this measure's y axis (one layer, two marks).
        return probed
          ? {
              data: { values },
              encoding: { x, y },
              layer: [{ mark: line }, probeLabels(x, y, i === 0 ? -9 : 14)],
            }
          : { data: { values }, mark: line, encoding: { x, y } };
      }),
      ...kneeLayer(input.knee, x),
    ],
  } as TopLevelSpec;
}

/** What a chart of searched levels says of the numbers by its points. */
const PROBE_WORDS = "; the number by each point is the order in which the search ran that level (1 first)";

/**
 * The order labels of a searched run's points, `dy` px off each point (above or below it): a text
 * mark over the rows that carry a `probe` order, on the chart's x and the measure's y.
 */
function probeLabels(x: ReturnType<typeof loadAxisEncoding>, y: object, dy: number) {
  return {
    transform: [{ filter: "datum.probe != null" }],
    mark: { type: "text" as const, dy, fontSize: FONT_SIZE, color: CHART_COLORS.ink },
    encoding: { x, y, text: { field: "probe", type: "nominal" as const } },
  };
}

const PERCENTILE_FIGURE = {
  ttft: { p50: "ttftP50Ms", p95: "ttftP95Ms", p99: "ttftP99Ms" },
  e2e: { p50: "e2eP50Ms", p95: "e2eP95Ms", p99: "e2eP99Ms" },
} as const;

/** TTFT and end-to-end latency at the axis's percentiles, one panel above the other, ms on a log axis; percentiles differ by colour, shape and dash. */
export function latencySpec(input: { title: string; axis: LoadAxis; levels: LevelPoint[] }): TopLevelSpec {
  const a = AXES[input.axis];
  const levels = drawn(input.axis, input.levels);
  const x = loadAxisEncoding(
    input.axis,
    levels.map((l) => l.position),
  );
  const percentiles: readonly Percentile[] = a.percentiles;
  const percentile = (range: unknown[]) => ({
    field: "percentile",
    type: "nominal" as const,
    title: "percentile",
    scale: { domain: [...percentiles], range },
    legend: { orient: "bottom" as const, direction: "horizontal" as const },
  });
  const panel = (name: string, figures: Record<Percentile, LevelFigure>) => ({
    title: name,
    width: PLOT_WIDTH,
    height: PANEL_HEIGHT,
    data: {
      values: present(
        levels.flatMap((l) =>
          percentiles.map((p) => ({ [input.axis]: l.position, percentile: p, value: l[figures[p]] })),
        ),
      ),
    },
    mark: { type: "line" as const, interpolate: "linear" as const, point: { filled: true, size: 40 } },
    encoding: {
      x,
      y: { field: "value", type: "quantitative" as const, title: "ms (log axis)", scale: { type: "log" as const } },
      color: percentile(percentiles.map((_, i) => style(i).color)),
      shape: percentile(percentiles.map((_, i) => style(i).shape)),
      strokeDash: percentile(percentiles.map((_, i) => style(i).dash)),
    },
  });
  const said = percentiles.map((p, i) => `${p} (${style(i).words}, ${style(i).dashWords})`);
  const list = said.length > 1 ? `${said.slice(0, -1).join(", ")} and ${said.at(-1)}` : said.join("");
  return {
    $schema: SCHEMA,
    title: input.title,
    description: `Time to first token and end-to-end latency, ${list} in milliseconds on a log axis, ${a.against}.`,
    config: CONFIG,
    vconcat: [panel("time to first token", PERCENTILE_FIGURE.ttft), panel("end-to-end", PERCENTILE_FIGURE.e2e)],
  } as TopLevelSpec;
}

/**
 * Several targets' (or routes') curves overlaid against their load axis, told apart by colour and
 * shape; rows carry `targetId` so a page can filter them. One measure: one chart titled by it (y from
 * zero, or on a log axis for latency). Several: one panel per measure stacked one above the other,
 * every y axis linear from zero. Levels the axis does not draw (invalid open-loop rates) are left out.
 */
export function overlaySpec(input: {
  axis: LoadAxis;
  series: LevelSeries[];
  measures: readonly MeasureKey[];
  /** What a series is, as the legend names it. */
  seriesName?: "target" | "route";
  title?: string;
  description?: string;
}): TopLevelSpec {
  const a = AXES[input.axis];
  const name = input.seriesName ?? "target";
  const series = input.series.map((s) => ({ ...s, levels: drawn(input.axis, s.levels) }));
  const x = loadAxisEncoding(
    input.axis,
    series.flatMap((s) => s.levels.map((l) => l.position)),
  );
  const by = { field: name, type: "nominal" as const, title: name, legend: SERIES_LEGEND };
  const values = (key: MeasureKey) =>
    present(
      series.flatMap((s) =>
        s.levels.map((l) => ({
          targetId: s.targetId,
          [name]: s.label,
          [input.axis]: l.position,
          value: l[MEASURES[key].figure],
        })),
      ),
    );
  const mark = { type: "line" as const, interpolate: "linear" as const, point: { filled: true, size: 45 } };
  const several = `one line per ${name} (colour and marker shape per ${name})`;
  const [only] = input.measures;
  if (input.measures.length === 1 && only !== undefined) {
    const m: { title: string; words: string; log?: boolean } = MEASURES[only];
    const title = input.title ?? m.title;
    return {
      $schema: SCHEMA,
      title,
      description:
        input.description ??
        `${capital(m.words)} ${a.against}, ${m.log ? "y on a log axis" : "y axis from zero"}, ${several}.`,
      width: PLOT_WIDTH,
      height: PLOT_HEIGHT,
      config: CONFIG,
      data: { values: values(only) },
      mark,
      encoding: {
        x,
        y: { field: "value", type: "quantitative", title: m.title, scale: m.log ? { type: "log" } : THROUGHPUT_SCALE },
        color: by,
        shape: by,
        order: { field: input.axis, type: "quantitative" },
      },
    } as TopLevelSpec;
  }
  const said = input.measures.map((k) => MEASURES[k].words).join(" (top) and ");
  return {
    $schema: SCHEMA,
    title: input.title ?? input.measures.map((k) => MEASURES[k].axisTitle).join(" and "),
    description:
      input.description ??
      `${capital(said)} (bottom), each y axis linear from zero, ${a.against}; ${several}${a.drawsInvalid ? "" : ", invalid levels left out"}.`,
    config: CONFIG,
    resolve: { scale: { color: "shared", shape: "shared" } },
    vconcat: input.measures.map((k) => ({
      title: MEASURES[k].name,
      width: PLOT_WIDTH,
      height: PANEL_HEIGHT,
      data: { values: values(k) },
      mark: { ...mark, point: { filled: true, size: 50 } },
      encoding: {
        x,
        y: { field: "value", type: "quantitative" as const, title: MEASURES[k].axisTitle, scale: THROUGHPUT_SCALE },
        color: by,
        shape: by,
        order: { field: input.axis, type: "quantitative" as const },
      },
    })),
  } as TopLevelSpec;
}

/** The standing chart's knee marker colours. */
const STANDING_KNEE_COLORS: KneeColors = { rule: "#555", label: "#555" };

/**
 * The standing's median curves against the levels' load axis, each with a band for the interval
 * bounding its median: aggregate tok/s (left axis) and per-stream tok/s p50 (right axis). Only ranked
 * levels (valid in at least half of the runs) are drawn, as only they give the peak and the knee.
 */
export function standingCurvesSpec(input: {
  title: string;
  levels: StandingLevel[];
  knee: number | null;
}): TopLevelSpec {
  const ranked = input.levels.filter((l) => l.ranked);
  const axis: LoadAxis = ranked[0] ? loadAxis(ranked[0].load) : "concurrency";
  const a = AXES[axis];
  const x = loadAxisEncoding(
    axis,
    ranked.map((l) => loadPosition(l.load)),
  );
  const rows = (pick: (l: StandingLevel) => StandingLevel["aggregateOutputTokensPerSecond"]) =>
    ranked.flatMap((l) => {
      const e = pick(l);
      return e ? [{ [axis]: loadPosition(l.load), median: e.median, low: e.low, high: e.high, n: e.n }] : [];
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
            { field: axis, type: "quantitative" as const },
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
    description: `Median aggregate output tokens per second (left axis) and median per-stream output tokens per second (right axis) over recent runs, ${a.against}; shaded bands show the interval bounding each median${input.knee ? `; the knee of the median curve is at ${a.label(input.knee)}` : ""}.`,
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
    config: CONFIG,
    resolve: { scale: { y: "independent" } },
    layer: [
      measure(
        rows((l) => l.aggregateOutputTokensPerSecond),
        CHART_COLORS.aggregate,
        "aggregate tok/s (all streams), median",
        "left",
      ),
      measure(
        rows((l) => l.perStreamOutputTokensPerSecondP50),
        CHART_COLORS.perStream,
        "per-stream tok/s (p50, one user), median",
        "right",
      ),
      // A fixed grey, as this chart has always drawn its knee (not the page's CSS variables).
      ...kneeLayer(input.knee, x, STANDING_KNEE_COLORS),
    ],
  } as TopLevelSpec;
}
