/**
 * @module Open-loop scenarios (requests sent on a Poisson schedule at set rates): their levels are
 * request rates, so they are ranked by capacity in requests/s (the highest offered rate whose level
 * meets the SLO) and drawn against the offered rate (the `rate` axis of `charts/axis.ts`).
 */
import type { Load } from "@kneeboard/core/run";
import { type Estimate, estimate, rankLabel, ranksBy } from "@kneeboard/core/standing";
import { levelPoints } from "./charts/axis.ts";
import type { PrefillPoint } from "./charts/prefill.ts";
import { targetModelKey } from "./models.ts";
import type { TargetView } from "./site-data.ts";

/** The offered rate of a figure's level (a peak, of a run or a standing); null without a figure or an open load. */
export function rateOf(figure: { load: Load } | null | undefined): number | null {
  return figure?.load.kind === "open" ? figure.load.ratePerSecond : null;
}

/** True when a load is an open loop's at `rate` requests/s. */
const atRate = (load: Load, rate: number) => load.kind === "open" && load.ratePerSecond === rate;

/**
 * Capacity in requests/s over the standing's runs: the median (and interval) of each run's
 * `capacityRequestsPerSecond`, a run in which no rate met the SLO counting as 0; null when none met it.
 */
export function capacityEstimate(view: Pick<TargetView, "history" | "standing">): Estimate | null {
  const inStanding = new Set(view.standing.runIds);
  const values = view.history.filter((h) => inStanding.has(h.runId)).map((h) => h.capacityRequestsPerSecond);
  if (values.every((v) => v === null)) return null;
  return estimate(values.map((v) => v ?? 0));
}

/** One row of an open-loop ranking. */
export interface RateRow {
  id: string;
  label: string;
  modelKey: string;
  simulated: boolean;
  rank: number | null;
  rankLabel: string;
  /** The highest offered rate meeting the SLO, requests/s, over the standing's runs. */
  capacity: Estimate | null;
  /** The latest run's achieved rate at its capacity level, requests/s. */
  achievedAtCapacity: number | null;
  /** The standing's TTFT p95 and per-stream tok/s at the latest run's capacity level. */
  ttftP95AtCapacity: Estimate | null;
  perStreamAtCapacity: Estimate | null;
  peakAggregate: Estimate | null;
  /** The offered rate of the peak's level, requests/s. */
  peakRatePerSecond: number | null;
  errorRate: number;
  rateLimitRate: number;
  problem: string | null;
  /** Capacity in requests/s of the last runs, oldest first. */
  trend: (number | null)[];
}

/** Open-loop views ranked by capacity in requests/s (shared ranks where the intervals overlap). */
export function rateRows(views: readonly TargetView[], trendRuns = 20): RateRow[] {
  const caps = new Map(views.map((v) => [v.id, capacityEstimate(v)]));
  const ranks = ranksBy(views.map((v) => ({ id: v.id, estimate: caps.get(v.id) ?? null })));
  const all = [...ranks.values()];
  return views
    .map((v): RateRow => {
      const s = v.latest.summary;
      const capRate = s.capacityRequestsPerSecond ?? null;
      const capLevel = capRate === null ? undefined : v.details?.levels.find((l) => atRate(l.load, capRate));
      const standingAt = capRate === null ? undefined : v.standing.levels.find((l) => atRate(l.load, capRate));
      const peak = v.standing.peak;
      const rank = ranks.get(v.id) ?? null;
      return {
        id: v.id,
        label: v.label,
        modelKey: targetModelKey(v),
        simulated: v.simulated,
        rank,
        rankLabel: rankLabel(rank, all),
        capacity: caps.get(v.id) ?? null,
        achievedAtCapacity: capLevel?.achievedRatePerSecond ?? null,
        ttftP95AtCapacity: standingAt?.ttftP95Ms ?? null,
        perStreamAtCapacity: standingAt?.perStreamOutputTokensPerSecondP50 ?? null,
        peakAggregate: peak?.aggregateOutputTokensPerSecond ?? null,
        peakRatePerSecond: rateOf(peak),
        errorRate: s.errorRate,
        rateLimitRate: s.rateLimitRate,
        problem:
          v.latest.status === "partial"
            ? `partial${v.latest.partialReason ? ` (${v.latest.partialReason})` : ""}`
            : !s.valid
              ? "some rates invalid"
              : null,
        trend: v.history.slice(-trendRuns).map((h) => h.capacityRequestsPerSecond ?? 0),
      };
    })
    .sort(
      (a, b) =>
        (a.rank ?? Number.POSITIVE_INFINITY) - (b.rank ?? Number.POSITIVE_INFINITY) ||
        (b.capacity?.median ?? -1) - (a.capacity?.median ?? -1) ||
        a.id.localeCompare(b.id),
    );
}

/** "0.5 req/s", "12 req/s": a rate with the precision it needs. */
export function fmtRate(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || !Number.isFinite(rate)) return "—";
  return `${rate.toLocaleString("en-US", { maximumFractionDigits: rate < 10 ? 2 : 1 })} req/s`;
}

/**
 * The prefill curve of one target: TTFT p50 at level 1 of the latest readable run of each closed-loop
 * scenario with a valid level 1 and known prompt tokens, by prompt tokens; empty unless 2 or more.
 */
export function prefillPoints(views: readonly TargetView[]): PrefillPoint[] {
  const points = views.flatMap((v): PrefillPoint[] => {
    if (v.openLoop || v.promptTokens === null || v.promptTokens === undefined || v.details === null) return [];
    const one = v.details.levels.find((l) => l.load.kind === "closed" && l.load.concurrency === 1);
    const ttft = one?.ttftMs.p50 ?? null;
    if (!one?.valid || ttft === null || !Number.isFinite(ttft)) return [];
    return [{ scenario: v.scenario, promptTokens: v.promptTokens, ttftP50Ms: ttft }];
  });
  return points.length >= 2 ? points.sort((a, b) => a.promptTokens - b.promptTokens) : [];
}

/**
 * Under a model's open-loop charts: the routes and offered rates they leave out as invalid (the client
 * could not keep the schedule, or hit `maxInFlight`); null when every rate of every route is drawn.
 */
export function ratesLeftOut(routes: readonly TargetView[]): string | null {
  const parts = routes.flatMap((t) => {
    const points = levelPoints(t.details?.levels ?? []);
    const invalid = points.filter((p) => !p.valid).map((p) => p.position);
    if (invalid.length === 0 && points.length > 0) return [];
    if (invalid.length === points.length) return [`“${t.label}”, whose latest run has no valid rate`];
    return [
      `the invalid ${invalid.length === 1 ? "rate" : "rates"} of “${t.label}” (${invalid.map((r) => fmtRate(r)).join(", ")})`,
    ];
  });
  return parts.length
    ? `Left out, as invalid levels are never drawn: ${parts.join("; ")}. The table below has their figures, marked valid or not.`
    : null;
}
