/** @module What each watched series reads from a run index entry, and the per-metric rules of detection. */
import type { MetricName } from "../alerts/index.ts";
import { kneeInRate } from "../kinds/index.ts";
import { concurrencyOf } from "../run/index.ts";
import type { RunIndexEntry } from "../run-index/index.ts";

/** Metrics in the order titles name them: what users feel first. */
export const METRICS: readonly MetricName[] = [
  "peakAggregateOutputTokensPerSecond",
  "singleStreamOutputTokensPerSecond",
  "singleStreamTtftP50Ms",
  "errorRate",
  "rateLimitRate",
  "kneeConcurrency",
  "capacityRequestsPerSecond",
];

/**
 * The value of one metric in one run; null when the run does not show it (no valid level 1, not
 * saturated, a knee concurrency of an open loop). Like the summary, it takes nothing from an invalid level: single-stream figures need a
 * valid level 1 (checked on the level too, for entries summarized before the summary did so itself),
 * the peak and the knee come from valid levels only.
 */
export function metricValue(entry: RunIndexEntry, metric: MetricName): number | null {
  const s = entry.summary;
  const levelOneValid = entry.levels.some((l) => concurrencyOf(l.load) === 1 && l.valid);
  switch (metric) {
    // Level 1 counts only when it is valid, as in the standing; the peak and the knee already come from valid levels.
    case "singleStreamOutputTokensPerSecond":
      return levelOneValid ? (s.singleStream?.outputTokensPerSecond ?? null) : null;
    case "singleStreamTtftP50Ms":
      return levelOneValid ? (s.singleStream?.ttftP50Ms ?? null) : null;
    case "peakAggregateOutputTokensPerSecond":
      return s.peak?.aggregateOutputTokensPerSecond ?? null;
    case "kneeConcurrency":
      // Levels numbered along a rate (an open loop's): a knee at "level 2" is no concurrency (see `readInRate`).
      return readInRate(entry) ? null : s.kneeConcurrency;
    case "errorRate":
      return s.errorRate;
    case "capacityRequestsPerSecond":
      // An open loop's capacity: the highest offered rate that met the SLO (null on a closed loop).
      return s.capacityRequestsPerSecond ?? null;
    case "rateLimitRate":
      return s.rateLimitRate;
  }
}

/**
 * True for a run read in offered rate (an open loop's: its levels are request rates, numbered 1, 2,
 * ...): a level's kind reads its knee in rate (`kneeInRate`), the summary has a knee in requests/s,
 * or (entries recorded before either) a capacity in requests/s, which only such a run has. An older
 * entry of that kind in which no rate met the SLO shows none of these and still reads in users.
 */
function readInRate(entry: RunIndexEntry): boolean {
  const s = entry.summary;
  return kneeInRate(entry.levels) || s.kneeRequestsPerSecond !== undefined || s.capacityRequestsPerSecond !== null;
}

/**
 * Complete runs with at least one valid level enter the numeric series; their invalid levels are
 * skipped the way the summary skips them (see `metricValue`). Requiring every level valid would blind
 * the detector to a target whose top level is rate-limited in every run (the sweep stops there).
 */
export function isJudged(entry: RunIndexEntry): boolean {
  return entry.status === "complete" && entry.levels.some((l) => l.valid);
}

/**
 * The target stopped answering: no request succeeded at any level (every level then lacks an ok
 * sample, so none is valid). A run with no valid level for other reasons (client-limited, route
 * mismatches) is not the target's silence; it is only left out of the series.
 */
export function isStopped(entry: RunIndexEntry): boolean {
  return entry.levels.length === 0 || entry.levels.every((l) => l.ok === 0) || entry.summary.errorRate >= 1;
}

/** Rates are fractions whose baseline is often 0: their smallest change that counts is absolute. */
export function isRate(metric: MetricName): boolean {
  return metric === "errorRate" || metric === "rateLimitRate";
}

/** Throughput halving is catastrophic and alerts on its first run. */
export function isThroughput(metric: MetricName): boolean {
  return metric === "peakAggregateOutputTokensPerSecond" || metric === "singleStreamOutputTokensPerSecond";
}

/**
 * Knee concurrency and an open loop's capacity take a few discrete values (the levels, the offered
 * rates): one level's step is no catastrophe on its own.
 */
export function isDiscrete(metric: MetricName): boolean {
  return metric === "kneeConcurrency" || metric === "capacityRequestsPerSecond";
}
