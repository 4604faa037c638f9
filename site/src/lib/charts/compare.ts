/**
 * @module The compare charts: several targets' curves of one figure overlaid, against concurrency for a
 * closed loop, against the offered request rate for an open loop (whose level numbers are not a concurrency).
 */
import type { TopLevelSpec } from "vega-lite";
import type { RatePoint } from "../open-loop.ts";
import { type RateSeries, rateAxis } from "./rate.ts";
import {
  AGGREGATE_TITLE,
  CONFIG,
  concurrencyAxis,
  PER_STREAM_TITLE,
  PLOT_HEIGHT,
  PLOT_WIDTH,
  present,
  SCHEMA,
  SERIES_LEGEND,
  type TargetSeries,
  THROUGHPUT_SCALE,
} from "./shared.ts";

export type CompareMeasure = "aggregate" | "perStream";

/** Several targets' curves overlaid, told apart by colour and shape; rows carry `targetId` so a page can filter them. */
export function compareSpec(input: { series: TargetSeries[]; measure: CompareMeasure }): TopLevelSpec {
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
  const legend = SERIES_LEGEND;
  return {
    $schema: SCHEMA,
    title,
    description: `${title} against concurrency on a log-2 axis, y axis from zero, one line per target (colour and marker shape per target).`,
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
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

export type CompareRateMeasure = "aggregate" | "goodput" | "ttftP95";

const RATE_MEASURES: Record<
  CompareRateMeasure,
  { title: string; pick: (p: RatePoint) => number | null; what: string; log?: boolean }
> = {
  aggregate: {
    title: AGGREGATE_TITLE,
    pick: (p) => p.aggregateOutputTokensPerSecond,
    what: "aggregate output tokens per second",
  },
  goodput: {
    title: "goodput tok/s (requests meeting the SLO)",
    pick: (p) => p.goodputOutputTokensPerSecond,
    what: "goodput, the output tokens per second of requests that each met the SLO,",
  },
  ttftP95: {
    title: "TTFT p95 ms (log axis)",
    pick: (p) => p.ttftP95Ms,
    what: "time to first token p95 in milliseconds",
    log: true,
  },
};

/**
 * Several open-loop targets' curves of one figure against the offered request rate (linear, from zero),
 * valid levels only as the target pages' rate charts draw them; tok/s from zero, latency on a log axis.
 * Rows carry `targetId` so a page can filter them.
 */
export function compareRateSpec(input: { series: RateSeries[]; measure: CompareRateMeasure }): TopLevelSpec {
  const m = RATE_MEASURES[input.measure];
  const valid = input.series.map((s) => ({ ...s, points: s.points.filter((p) => p.valid) }));
  const values = present(
    valid.flatMap((s) =>
      s.points.map((p) => ({ targetId: s.targetId, target: s.label, rate: p.ratePerSecond, value: m.pick(p) })),
    ),
  );
  const legend = SERIES_LEGEND;
  return {
    $schema: SCHEMA,
    title: m.title,
    description: `The ${m.what} against the offered request rate in requests per second, ${m.log ? "y on a log axis" : "y axis from zero"}, one line per target (colour and marker shape per target).`,
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
    config: CONFIG,
    data: { values },
    mark: { type: "line", interpolate: "linear", point: { filled: true, size: 45 } },
    encoding: {
      x: rateAxis(valid.flatMap((s) => s.points.map((p) => p.ratePerSecond))),
      y: {
        field: "value",
        type: "quantitative",
        title: m.title,
        scale: m.log ? { type: "log" as const } : THROUGHPUT_SCALE,
      },
      color: { field: "target", type: "nominal", title: "target", legend },
      shape: { field: "target", type: "nominal", title: "target", legend },
    },
  } as TopLevelSpec;
}
