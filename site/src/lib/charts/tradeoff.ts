/** @module The throughput-interactivity trade-off chart: per-stream against aggregate tok/s, one line per target through its levels. */
import type { TopLevelSpec } from "vega-lite";
import {
  AGGREGATE_COLOR,
  AGGREGATE_SHAPE,
  AGGREGATE_TITLE,
  CHART_COLORS,
  CONFIG,
  PER_STREAM_TITLE,
  SCHEMA,
  type TargetSeries,
  THROUGHPUT_SCALE,
} from "./shared.ts";

/**
 * The throughput-interactivity trade-off: per-stream tok/s p50 (x, what one user gets) against
 * aggregate tok/s (y, what the fleet gets), one line per target through its levels in order of
 * concurrency, each point labelled with its concurrency; both axes from zero. Invalid levels are left out.
 */
export function tradeoffSpec(input: { title: string; series: TargetSeries[] }): TopLevelSpec {
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
