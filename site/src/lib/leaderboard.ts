/** @module The leaderboard's rows: the latest run's figures per target, with its state spelled out. */
import { stopLabel } from "@kneeboard/core/run";
import type { TargetView } from "./site-data.ts";

export interface LeaderboardRow {
  id: string;
  label: string;
  model: string;
  simulated: boolean;
  singleStreamTokensPerSecond: number | null;
  singleStreamTtftP50Ms: number | null;
  peakAggregateTokensPerSecond: number | null;
  peakConcurrency: number | null;
  perStreamAtPeakTokensPerSecond: number | null;
  kneeConcurrency: number | null;
  saturated: boolean;
  scalingEfficiency: number | null;
  errorRate: number;
  rateLimitRate: number;
  measuredAt: string;
  /**
   * `partial (deadline)`, the sweep's stop in words (`rate-limited from N=8`, `unreachable`,
   * `failing from N=1`) or `invalid at concurrency ...`; null when the last run is complete and valid.
   */
  problem: string | null;
  /** Peak aggregate tok/s of the last runs, oldest first. */
  trend: (number | null)[];
}

export const TREND_RUNS = 20;

export function leaderboardRows(targets: TargetView[]): LeaderboardRow[] {
  return targets
    .map((t) => {
      const s = t.latest.summary;
      const invalidLevels = t.latest.levels.filter((l) => !l.valid).map((l) => l.concurrency);
      const problem =
        t.latest.status === "partial"
          ? `partial${t.latest.partialReason ? ` (${t.latest.partialReason})` : ""}`
          : s.stop
            ? stopLabel(s.stop)
            : !s.valid
              ? `invalid at concurrency ${invalidLevels.join(", ") || "?"}`
              : null;
      return {
        id: t.id,
        label: t.label,
        model: t.model,
        simulated: t.simulated,
        singleStreamTokensPerSecond: s.singleStream?.outputTokensPerSecond ?? null,
        singleStreamTtftP50Ms: s.singleStream?.ttftP50Ms ?? null,
        peakAggregateTokensPerSecond: s.peak?.aggregateOutputTokensPerSecond ?? null,
        peakConcurrency: s.peak?.concurrency ?? null,
        perStreamAtPeakTokensPerSecond: s.peak?.perStreamOutputTokensPerSecond ?? null,
        kneeConcurrency: s.kneeConcurrency,
        saturated: s.saturated,
        scalingEfficiency: s.scalingEfficiency,
        errorRate: s.errorRate,
        rateLimitRate: s.rateLimitRate,
        measuredAt: t.latest.startedAt,
        problem,
        trend: t.history.slice(-TREND_RUNS).map((h) => h.peakAggregateOutputTokensPerSecond),
      };
    })
    .sort((a, b) => (b.peakAggregateTokensPerSecond ?? -1) - (a.peakAggregateTokensPerSecond ?? -1));
}
