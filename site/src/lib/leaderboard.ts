/**
 * @module The leaderboard's rows: each target's standing (medians with intervals over its recent
 * valid runs), ranked so that targets whose intervals overlap share a rank, the latest run's state
 * spelled out, and the rows cut into model groups without ever putting a worse rank above a better one.
 */

import { concurrencyOf, loadWords, sameLoad, stopLabel } from "@kneeboard/core/run";
import { type Estimate, rankLabel, ranksBy } from "@kneeboard/core/standing";
import { costNote, targetModelKey } from "./models.ts";
import { searchedCapacity, standingSearches } from "./search.ts";
import { type TargetView, TREND_RUNS } from "./site-data.ts";

/** A level the standing shows but does not rank, with why. */
export interface InvalidLevelNote {
  /** The level's load in words (`N=8`). */
  at: string;
  invalidRuns: number;
  runs: number;
  reasons: string[];
}

export interface LeaderboardRow {
  id: string;
  label: string;
  model: string;
  /** The model the target serves; targets sharing it are routes of one model. */
  modelKey: string;
  simulated: boolean;
  /** 1 + the targets whose peak aggregate interval lies wholly above this one's; null without a peak. */
  rank: number | null;
  /** `=2` when shared, `2` when not. */
  rankLabel: string;
  /** Runs the standing is taken over. */
  runs: number;
  /** True when no run fell in the window and the latest valid run, older, stands in. */
  beyondWindow: boolean;
  /** False when the standing's runs ran no N = 1: the single-stream cells say "not measured", not a dash. */
  singleStreamMeasured: boolean;
  singleStreamTokensPerSecond: Estimate | null;
  singleStreamTtftP50Ms: Estimate | null;
  peakAggregateTokensPerSecond: Estimate | null;
  peakConcurrency: number | null;
  /** The latest run read its aggregate at the peak's level over the whole level (no steady window): the figure is marked. */
  peakWholeLevel: boolean;
  perStreamAtPeakTokensPerSecond: Estimate | null;
  kneeConcurrency: number | null;
  /** Users served at the SLO: the median of the runs' searched answers where the standing's runs searched, else the standing's (its median curve). */
  capacityConcurrency: number | null;
  /** Where the standing's runs searched: the median of their searched capacities with its interval (`standing.search`); null for a ladder. */
  capacitySearched: Estimate | null;
  /** Where the capacity was searched: how the runs found it, the newest run's bracket, confidence and cost, as the cell's tooltip; null for a ladder's. */
  capacityTitle: string | null;
  /**
   * The bracket the capacity lies in, and how it was found: a ladder's `[lo, hi)` off the standing's
   * levels (lo the capacity, null when no level met; hi the next level run above it, null when lo is
   * the top: not measured above it; the lowest ranked level when none met, null when none is ranked),
   * or the newest searched run's `[lo, hi]` at its confidence.
   */
  capacityBracket: CapacityBracket;
  /** Cost at the standing's peak level, from the latest run's figures there, USD per million output tokens. */
  costAtPeak: { metered: number | null; declared: number | null; note: string | null };
  /** Levels invalid in some run of the standing, with their reasons: shown, and not ranked unless valid in most runs. */
  invalidLevels: InvalidLevelNote[];
  saturated: boolean;
  scalingEfficiency: number | null;
  errorRate: number;
  rateLimitRate: number;
  measuredAt: string;
  /**
   * `partial (deadline)`, the sweep's stop in words (`rate-limited from N=8`, `unreachable`,
   * `failing from N=1`) or `invalid at N=4, N=8`; null when the last run is complete and valid.
   */
  problem: string | null;
  /** Peak aggregate tok/s of the last runs, oldest first. */
  trend: (number | null)[];
}

/** A capacity's bracket as the leaderboard shows it (`LeaderboardRow.capacityBracket`). */
export interface CapacityBracket {
  kind: "ladder" | "searched";
  lo: number | null;
  hi: number | null;
  /** A search's stated confidence; null for a ladder. */
  confidence: number | null;
}

/** A target's capacity bracket: its newest standing search's, else the ladder's off the standing's levels. */
export function capacityBracketOf(t: Pick<TargetView, "history" | "standing">): CapacityBracket {
  const newest = standingSearches(t)[0]?.search;
  if (newest)
    return { kind: "searched", lo: newest.capacity.lo, hi: newest.capacity.hi, confidence: newest.confidence };
  const st = t.standing;
  const lo = st.capacity ? concurrencyOf(st.capacity.load) : null;
  const users = (levels: typeof st.levels) =>
    levels
      .map((l) => concurrencyOf(l.load))
      .filter((n): n is number => n !== null)
      .sort((a, b) => a - b);
  // None met: below the lowest ranked level (null when none is ranked: nothing was judged).
  const hi =
    lo === null
      ? (users(st.levels.filter((l) => l.ranked))[0] ?? null)
      : (users(st.levels).find((n) => n > lo) ?? null);
  return { kind: "ladder", lo, hi, confidence: null };
}

export function leaderboardRows(targets: TargetView[]): LeaderboardRow[] {
  const ranks = ranksBy(
    targets.map((t) => ({ id: t.id, estimate: t.standing.peak?.aggregateOutputTokensPerSecond ?? null })),
  );
  const allRanks = [...ranks.values()];
  return targets
    .map((t) => {
      const s = t.latest.summary;
      const st = t.standing;
      const invalidLevels = t.latest.levels.filter((l) => !l.valid).map((l) => loadWords(l.load));
      const problem =
        t.latest.status === "partial"
          ? `partial${t.latest.partialReason ? ` (${t.latest.partialReason})` : ""}`
          : s.stop
            ? stopLabel(s.stop)
            : !s.valid
              ? `invalid at ${invalidLevels.join(", ") || "?"}`
              : null;
      const rank = ranks.get(t.id) ?? null;
      const peak = st.peak;
      const searched = searchedCapacity(t);
      const peakLevel = peak ? t.latest.levels.find((l) => sameLoad(l.load, peak.load)) : undefined;
      const metered = peakLevel?.meteredUsdPerMillionOutputTokens ?? null;
      const declared = peakLevel?.declaredUsdPerMillionOutputTokens ?? null;
      return {
        id: t.id,
        label: t.label,
        model: t.model,
        modelKey: targetModelKey(t),
        simulated: t.simulated,
        rank,
        rankLabel: rankLabel(rank, allRanks),
        runs: st.runIds.length,
        beyondWindow: st.beyondWindow,
        // Without a valid run nothing stands, measured or not: a plain dash.
        singleStreamMeasured: st.runIds.length === 0 || st.levels.some((l) => concurrencyOf(l.load) === 1),
        singleStreamTokensPerSecond: st.singleStream?.outputTokensPerSecond ?? null,
        singleStreamTtftP50Ms: st.singleStream?.ttftP50Ms ?? null,
        peakAggregateTokensPerSecond: st.peak?.aggregateOutputTokensPerSecond ?? null,
        peakConcurrency: peak ? concurrencyOf(peak.load) : null,
        peakWholeLevel: peakLevel?.aggregateWindow === "whole_level",
        perStreamAtPeakTokensPerSecond: st.peak?.perStreamOutputTokensPerSecond ?? null,
        kneeConcurrency: st.kneeConcurrency,
        saturated: st.saturated,
        scalingEfficiency: st.scalingEfficiency,
        capacityConcurrency: searched
          ? (searched.estimate?.median ?? null)
          : st.capacity
            ? concurrencyOf(st.capacity.load)
            : null,
        capacitySearched: searched?.estimate ?? null,
        capacityTitle: searched?.title ?? null,
        capacityBracket: capacityBracketOf(t),
        costAtPeak: { metered, declared, note: costNote(metered, declared) },
        invalidLevels: st.levels
          .filter((l) => l.invalidRuns > 0)
          .map((l) => ({
            at: loadWords(l.load),
            invalidRuns: l.invalidRuns,
            runs: st.runIds.length,
            reasons: l.invalidReasons,
          })),
        errorRate: s.errorRate,
        rateLimitRate: s.rateLimitRate,
        measuredAt: t.latest.startedAt,
        problem,
        trend: t.history.slice(-TREND_RUNS).map((h) => h.peakAggregateOutputTokensPerSecond),
      };
    })
    .sort(
      (a, b) =>
        (a.rank ?? Number.POSITIVE_INFINITY) - (b.rank ?? Number.POSITIVE_INFINITY) ||
        (b.peakAggregateTokensPerSecond?.median ?? -1) - (a.peakAggregateTokensPerSecond?.median ?? -1),
    );
}

/** Rows of one model that sit together in rank order, under one header when the model has several routes. */
export interface RankedGroup<Row> {
  modelKey: string;
  rows: Row[];
  /** Routes the model has on the whole page; more than `rows.length` when its routes rank apart. */
  modelRoutes: number;
  /** The model's routes in groups above this one (the rest, if any, are below). */
  routesAbove: number;
}

/**
 * Rows cut into model groups, ranks never decreasing down the page. Rows come in rank order (unranked
 * last); within a shared rank, where order is free, each model's rows are kept together, the model of
 * the row above first, then models by their best rank. A model whose routes rank apart (another model
 * ranks between them) gets one group per stretch: grouping it whole would put a worse rank above a better.
 */
export function rankedGroups<Row extends { modelKey: string; rank: number | null }>(rows: Row[]): RankedGroup<Row>[] {
  const rankOf = (r: Row) => r.rank ?? Number.POSITIVE_INFINITY;
  const best = new Map<string, number>();
  const routes = new Map<string, number>();
  for (const r of rows) {
    best.set(r.modelKey, Math.min(best.get(r.modelKey) ?? Number.POSITIVE_INFINITY, rankOf(r)));
    routes.set(r.modelKey, (routes.get(r.modelKey) ?? 0) + 1);
  }
  // Tiers of one rank, in rank order; the sort is stable, so the caller's order holds within a model.
  const tiers = new Map<number, Row[]>();
  for (const r of [...rows].sort((a, b) => rankOf(a) - rankOf(b))) {
    const tier = tiers.get(rankOf(r)) ?? [];
    tier.push(r);
    tiers.set(rankOf(r), tier);
  }
  const ordered: Row[] = [];
  for (const tier of tiers.values()) {
    const above = ordered[ordered.length - 1]?.modelKey;
    const models = [...new Set(tier.map((r) => r.modelKey))].sort(
      (a, b) =>
        Number(b === above) - Number(a === above) ||
        (best.get(a) ?? 0) - (best.get(b) ?? 0) ||
        tier.findIndex((r) => r.modelKey === a) - tier.findIndex((r) => r.modelKey === b),
    );
    for (const m of models) ordered.push(...tier.filter((r) => r.modelKey === m));
  }
  const groups: RankedGroup<Row>[] = [];
  const seen = new Map<string, number>();
  for (const r of ordered) {
    const last = groups[groups.length - 1];
    if (last && last.modelKey === r.modelKey) last.rows.push(r);
    else {
      const routesAbove = seen.get(r.modelKey) ?? 0;
      groups.push({ modelKey: r.modelKey, rows: [r], modelRoutes: routes.get(r.modelKey) ?? 1, routesAbove });
    }
    seen.set(r.modelKey, (seen.get(r.modelKey) ?? 0) + 1);
  }
  return groups;
}
