/** @module The latency chart: TTFT and end-to-end p50/p95/p99 against concurrency, on log axes. */
import type { TopLevelSpec } from "vega-lite";
import {
  CHART_COLORS,
  CONFIG,
  concurrencyAxis,
  type LevelPoint,
  PANEL_HEIGHT,
  PLOT_WIDTH,
  present,
  SCHEMA,
} from "./shared.ts";

const PERCENTILES = ["p50", "p95", "p99"] as const;

/** TTFT and end-to-end latency p50/p95/p99 against concurrency, one above the other; percentiles differ by colour, shape and dash. */
export function latencySpec(input: { title: string; levels: LevelPoint[] }): TopLevelSpec {
  const x = concurrencyAxis(input.levels.map((l) => l.concurrency));
  const percentile = (range: unknown[]) => ({
    field: "percentile",
    type: "nominal" as const,
    title: "percentile",
    scale: { domain: [...PERCENTILES], range },
    legend: { orient: "bottom" as const, direction: "horizontal" as const },
  });
  const panel = (name: string, pick: (l: LevelPoint, p: (typeof PERCENTILES)[number]) => number | null) => ({
    title: name,
    width: PLOT_WIDTH,
    height: PANEL_HEIGHT,
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
    vconcat: [
      panel("time to first token", (l, p) => l[`ttft${p.toUpperCase() as "P50"}Ms`]),
      panel("end-to-end", (l, p) => l[`e2e${p.toUpperCase() as "P50"}Ms`]),
    ],
  } as TopLevelSpec;
}
