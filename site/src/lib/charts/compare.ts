/** @module The compare chart: several targets' curves of one throughput against concurrency, overlaid. */
import type { TopLevelSpec } from "vega-lite";
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
