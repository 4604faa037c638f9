/** @module Charts against concurrency of the two throughputs: aggregate tok/s rising and per-stream tok/s falling, the latest run's and the standing's medians. */

import { loadPosition } from "@kneeboard/core/run";
import type { StandingLevel } from "@kneeboard/core/standing";
import type { TopLevelSpec } from "vega-lite";
import { type KneeColors, kneeLayer } from "./knee.ts";
import {
  AGGREGATE_COLOR,
  AGGREGATE_SHAPE,
  AGGREGATE_TITLE,
  CONFIG,
  concurrencyAxis,
  type LevelPoint,
  PER_STREAM_COLOR,
  PER_STREAM_SHAPE,
  PER_STREAM_TITLE,
  PLOT_HEIGHT,
  PLOT_WIDTH,
  present,
  SCHEMA,
  THROUGHPUT_SCALE,
} from "./shared.ts";

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
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
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
      ...kneeLayer(input.knee, x),
    ],
  };
  return spec as TopLevelSpec;
}

/** The standing chart's knee marker colours. */
const STANDING_KNEE_COLORS: KneeColors = { rule: "#555", label: "#555" };

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
  const x = concurrencyAxis(ranked.map((l) => loadPosition(l.load)));
  const rows = (pick: (l: StandingLevel) => StandingLevel["aggregateOutputTokensPerSecond"]) =>
    ranked.flatMap((l) => {
      const e = pick(l);
      return e ? [{ concurrency: loadPosition(l.load), median: e.median, low: e.low, high: e.high, n: e.n }] : [];
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
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
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
      // A fixed grey, as this chart has always drawn its knee (not the page's CSS variables).
      ...kneeLayer(input.knee, x, STANDING_KNEE_COLORS),
    ],
  } as TopLevelSpec;
}
