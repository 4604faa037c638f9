/**
 * @module What a scenario's compare page draws: its overlay charts (against concurrency, or against the
 * offered request rate for an open loop), the open loop's numbers, and which targets the build-time
 * trade-off chart draws.
 */
import type { TopLevelSpec } from "vega-lite";
import { type LoadAxis, type MeasureKey, overlaySpec } from "./charts/index.ts";
import { rateOf } from "./open-loop.ts";
import { type TargetView, viewAxis } from "./site-data.ts";
import { viewPoints } from "./view-points.ts";

/** The trade-off chart draws at most this many targets: every point is labelled, so 100 targets would make a page of megabytes. */
export const COMPARE_TRADEOFF_TARGETS = 12;

/** The targets with the highest median peak aggregate tok/s (the leaderboard's order), at most `COMPARE_TRADEOFF_TARGETS`. */
export function tradeoffTargets(targets: TargetView[]): TargetView[] {
  const peak = (t: TargetView) => t.standing.peak?.aggregateOutputTokensPerSecond.median ?? -1;
  return [...targets].sort((a, b) => peak(b) - peak(a)).slice(0, COMPARE_TRADEOFF_TARGETS);
}

/** One overlay chart of the compare page: drawn in the browser from `spec`, filtered to the picked targets. */
export interface CompareChart {
  /** Names the chart's element (`chart-<measure>`). */
  measure: string;
  spec: TopLevelSpec;
  caption: string;
}

/** The overlay charts of each load axis, with their captions: what a compare page of that axis draws. */
const COMPARE_CHARTS: Record<LoadAxis, readonly { measure: MeasureKey; caption: string }[]> = {
  concurrency: [
    {
      measure: "aggregate",
      caption:
        "Aggregate tok/s of the picked targets against concurrency, y axis from zero; each target has its own colour and marker shape.",
    },
    {
      measure: "perStream",
      caption: "Per-stream tok/s (p50) of the picked targets against concurrency, y axis from zero.",
    },
  ],
  rate: [
    {
      measure: "aggregate",
      caption:
        "Aggregate tok/s of the picked targets against the offered request rate, y axis from zero; each target has its own colour and marker shape.",
    },
    {
      measure: "goodput",
      caption:
        "Goodput tok/s (the output of requests that each met the SLO) of the picked targets against the offered request rate, y axis from zero.",
    },
    {
      measure: "ttftP95",
      caption: "Time to first token p95 of the picked targets against the offered request rate, ms on a log axis.",
    },
  ],
  speedup: [
    {
      measure: "ttftP95",
      caption:
        "Time to first token p95 of the picked targets against the speedup of the replayed trace, ms on a log axis; each target has its own colour and marker shape.",
    },
    {
      measure: "goodput",
      caption:
        "Goodput tok/s (the output of requests that each met the SLO) of the picked targets against the speedup of the replayed trace, y axis from zero.",
    },
  ],
};

/**
 * The overlay charts of one scenario's views, every view's rows in each, against the views' load axis
 * (the first view's; the page passes views of one axis): the
 * axis's measures (`COMPARE_CHARTS`), as its target pages draw them.
 */
export function compareCharts(views: readonly TargetView[]): CompareChart[] {
  const axis: LoadAxis = views[0] ? viewAxis(views[0]) : "concurrency";
  const series = views
    .filter((v) => viewAxis(v) === axis)
    .map((v) => ({ targetId: v.id, label: v.label, levels: viewPoints(v) }));
  return COMPARE_CHARTS[axis].map(({ measure, caption }) => ({
    measure,
    spec: overlaySpec({ axis, series, measures: [measure] }),
    caption,
  }));
}

/** An open-loop target's row of the compare table: its latest run's figures, as the overlaid curves are its latest run's. */
export interface RateCompareRow {
  /** The highest offered rate whose level met the SLO, requests/s; null when none did. */
  capacityRequestsPerSecond: number | null;
  /** Requests sent per second at that rate. */
  achievedRequestsPerSecond: number | null;
  ttftP95AtCapacityMs: number | null;
  peakAggregateOutputTokensPerSecond: number | null;
  /** The offered rate of the peak, requests/s. */
  peakRatePerSecond: number | null;
}

/** The latest run's capacity in requests/s and what it achieved there, and its peak with the peak's rate. */
export function rateCompareRow(view: TargetView): RateCompareRow {
  const s = view.latest.summary;
  const capacity = s.capacityRequestsPerSecond ?? null;
  const level =
    capacity === null
      ? undefined
      : view.details?.levels.find((l) => l.load.kind === "open" && l.load.ratePerSecond === capacity);
  return {
    capacityRequestsPerSecond: capacity,
    achievedRequestsPerSecond: level?.achievedRatePerSecond ?? null,
    ttftP95AtCapacityMs: level?.ttftMs.p95 ?? null,
    peakAggregateOutputTokensPerSecond: s.peak?.aggregateOutputTokensPerSecond ?? null,
    peakRatePerSecond: rateOf(s.peak),
  };
}
