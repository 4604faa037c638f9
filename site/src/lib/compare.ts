/** @module Which targets the compare page's build-time trade-off chart draws. */
import type { TargetView } from "./site-data.ts";

/** The trade-off chart draws at most this many targets: every point is labelled, so 100 targets would make a page of megabytes. */
export const COMPARE_TRADEOFF_TARGETS = 12;

/** The targets with the highest median peak aggregate tok/s (the leaderboard's order), at most `COMPARE_TRADEOFF_TARGETS`. */
export function tradeoffTargets(targets: TargetView[]): TargetView[] {
  const peak = (t: TargetView) => t.standing.peak?.aggregateOutputTokensPerSecond.median ?? -1;
  return [...targets].sort((a, b) => peak(b) - peak(a)).slice(0, COMPARE_TRADEOFF_TARGETS);
}
