/**
 * @module Charts of open-loop levels against the offered request rate (the serving-benchmark picture):
 * TTFT and end-to-end latency p50/p95, and aggregate and goodput tok/s. No concurrency axis: an
 * open-loop level's number is not a concurrency.
 */
import type { TopLevelSpec } from "vega-lite";
import type { RatePoint } from "../open-loop.ts";
import {
  AGGREGATE_COLOR,
  AGGREGATE_SHAPE,
  CHART_COLORS,
  CONFIG,
  PANEL_HEIGHT,
  PLOT_HEIGHT,
  PLOT_WIDTH,
  present,
  SCHEMA,
  SERIES_LEGEND,
  THROUGHPUT_SCALE,
} from "./shared.ts";

export const RATE_TITLE = "offered rate (requests/s)";

/** The offered rate on a linear axis from zero, ticks at the measured rates. */
export function rateAxis(rates: number[]) {
  return {
    field: "rate",
    type: "quantitative" as const,
    title: RATE_TITLE,
    scale: { zero: true, nice: false },
    // An explicit precision: without one, vega sets it from the tick step, and "~g" drew 10 as "1e+1".
    axis: { values: [...new Set(rates)].sort((a, b) => a - b), format: ",.6~r" },
  };
}

const valid = (points: RatePoint[]) => points.filter((p) => p.valid);

/** TTFT and end-to-end latency p50 (circles, solid) and p95 (squares, dashed) against the offered rate, ms on a log axis, one panel above the other; invalid levels left out. */
export function rateLatencySpec(input: { title: string; points: RatePoint[] }): TopLevelSpec {
  const points = valid(input.points);
  const x = rateAxis(points.map((p) => p.ratePerSecond));
  const percentile = (range: unknown[]) => ({
    field: "percentile",
    type: "nominal" as const,
    title: "percentile",
    scale: { domain: ["p50", "p95"], range },
    legend: { orient: "bottom" as const, direction: "horizontal" as const },
  });
  const panel = (name: string, p50: (p: RatePoint) => number | null, p95: (p: RatePoint) => number | null) => ({
    title: name,
    width: PLOT_WIDTH,
    height: PANEL_HEIGHT,
    data: {
      values: present(
        points.flatMap((p) => [
          { rate: p.ratePerSecond, percentile: "p50", value: p50(p) },
          { rate: p.ratePerSecond, percentile: "p95", value: p95(p) },
        ]),
      ),
    },
    mark: { type: "line" as const, interpolate: "linear" as const, point: { filled: true, size: 40 } },
    encoding: {
      x,
      y: { field: "value", type: "quantitative" as const, title: "ms (log axis)", scale: { type: "log" as const } },
      color: percentile([CHART_COLORS.aggregate, CHART_COLORS.perStream]),
      shape: percentile(["circle", "square"]),
      strokeDash: percentile([
        [1, 0],
        [6, 3],
      ]),
    },
  });
  return {
    $schema: SCHEMA,
    title: input.title,
    description:
      "Time to first token and end-to-end latency, p50 (circles, solid) and p95 (squares, dashed) in milliseconds on a log axis, against the offered request rate in requests per second.",
    config: CONFIG,
    vconcat: [
      panel(
        "time to first token",
        (p) => p.ttftP50Ms,
        (p) => p.ttftP95Ms,
      ),
      panel(
        "end-to-end",
        (p) => p.e2eP50Ms,
        (p) => p.e2eP95Ms,
      ),
    ],
  } as TopLevelSpec;
}

/** Aggregate tok/s (circles) and goodput tok/s (squares, the tokens of requests that met the SLO) against the offered rate, from zero. */
export function rateThroughputSpec(input: { title: string; points: RatePoint[] }): TopLevelSpec {
  const points = valid(input.points);
  const x = rateAxis(points.map((p) => p.ratePerSecond));
  const values = present(
    points.flatMap((p) => [
      { rate: p.ratePerSecond, measure: "aggregate", value: p.aggregateOutputTokensPerSecond },
      { rate: p.ratePerSecond, measure: "goodput", value: p.goodputOutputTokensPerSecond },
    ]),
  );
  const measure = (range: unknown[]) => ({
    field: "measure",
    type: "nominal" as const,
    title: "output tok/s",
    scale: { domain: ["aggregate", "goodput"], range },
    legend: { orient: "bottom" as const },
  });
  return {
    $schema: SCHEMA,
    title: input.title,
    description:
      "Aggregate output tokens per second (circles) and goodput, the output tokens per second of requests that each met the SLO (squares), against the offered request rate in requests per second; y axis from zero.",
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
    config: CONFIG,
    data: { values },
    mark: { type: "line", interpolate: "linear", point: { filled: true, size: 50 } },
    encoding: {
      x,
      y: { field: "value", type: "quantitative", title: "output tok/s", scale: THROUGHPUT_SCALE },
      color: measure([AGGREGATE_COLOR, CHART_COLORS.perStream]),
      shape: measure([AGGREGATE_SHAPE, "square"]),
    },
  } as TopLevelSpec;
}

/** One target's open-loop levels, as the charts that overlay targets (a model's routes, the compare page) take them. */
export interface RateSeries {
  targetId: string;
  label: string;
  points: RatePoint[];
}

/** A panel of `rateRoutesSpec`: its title, y axis title, and the figure it draws of a level. */
export interface RatePanel {
  title: string;
  axisTitle: string;
  pick: (p: RatePoint) => number | null;
}

/**
 * Several routes' curves against the offered rate, overlaid (colour and marker shape per route), one
 * panel per figure stacked one above the other, every y axis linear from zero; invalid levels left
 * out. Rows carry `targetId`, as `compareSpec`'s do.
 */
export function rateRoutesSpec(input: {
  title: string;
  description: string;
  series: RateSeries[];
  panels: RatePanel[];
}): TopLevelSpec {
  const series = input.series.map((s) => ({ ...s, points: valid(s.points) }));
  const x = rateAxis(series.flatMap((s) => s.points.map((p) => p.ratePerSecond)));
  const route = { field: "route", type: "nominal" as const, title: "route", legend: SERIES_LEGEND };
  return {
    $schema: SCHEMA,
    title: input.title,
    description: input.description,
    config: CONFIG,
    resolve: { scale: { color: "shared", shape: "shared" } },
    vconcat: input.panels.map((panel) => ({
      title: panel.title,
      width: PLOT_WIDTH,
      height: PANEL_HEIGHT,
      data: {
        values: present(
          series.flatMap((s) =>
            s.points.map((p) => ({
              targetId: s.targetId,
              route: s.label,
              rate: p.ratePerSecond,
              value: panel.pick(p),
            })),
          ),
        ),
      },
      mark: { type: "line" as const, interpolate: "linear" as const, point: { filled: true, size: 50 } },
      encoding: {
        x,
        y: { field: "value", type: "quantitative" as const, title: panel.axisTitle, scale: { zero: true, nice: true } },
        color: route,
        shape: route,
        order: { field: "rate", type: "quantitative" as const },
      },
    })),
  } as TopLevelSpec;
}
