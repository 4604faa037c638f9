/**
 * @module What a capacity planner asks of the leaderboard: targets grouped by the model they serve
 * (a model's routes side by side), the leaderboard at one concurrency level, the SLO in words, and
 * cost per million output tokens with a note where metered and declared cost disagree.
 */
import { modelKeyOf } from "@kneeboard/core/config";
import { concurrencyOf, loadWords } from "@kneeboard/core/run";
import type { LevelFigures } from "@kneeboard/core/run-index";
import { type Estimate, rankLabel, ranksBy, type Slo, type StandingLevel } from "@kneeboard/core/standing";
import { fmt } from "./format.ts";
import type { TargetView } from "./site-data.ts";

/** The model key of a target: its runs' `modelKey`, else the slug of its model name. */
export function targetModelKey(t: Pick<TargetView, "model" | "latest">): string {
  return modelKeyOf({ model: t.model, modelKey: t.latest.modelKey });
}

/** "≥ 20 tok/s, TTFT p95 ≤ 2 s" (or "≥ 24 tok/s, no TTFT limit"): what one interactive user needs, in words. */
export function sloWords(slo: Slo): string {
  const speed = `≥ ${fmt(slo.minOutputTokensPerSecond)} tok/s`;
  if (slo.maxTtftMs === null) return `${speed}, no TTFT limit`;
  const ttft = slo.maxTtftMs % 1000 === 0 ? `${fmt(slo.maxTtftMs / 1000)} s` : `${fmt(slo.maxTtftMs)} ms`;
  return `${speed}, TTFT p95 ≤ ${ttft}`;
}

/** The capacity column's title: "serves N users at ≥ 20 tok/s, TTFT p95 ≤ 2 s". */
export function capacityTitle(slo: Slo): string {
  return `serves N users at ${sloWords(slo)}`;
}

/** Metered and declared cost differ by more than this share of the declared one: the page says so. */
export const COST_DISAGREEMENT = 0.1;

/** "metered 25 % above declared" when both exist and differ by more than 10 %, else null. */
export function costNote(metered: number | null, declared: number | null): string | null {
  if (metered === null || declared === null || declared <= 0) return null;
  const ratio = metered / declared - 1;
  if (Math.abs(ratio) <= COST_DISAGREEMENT) return null;
  return `metered ${fmt(Math.abs(ratio) * 100)} % ${ratio > 0 ? "above" : "below"} declared`;
}

/** USD per million output tokens, with cents below 10 $ and whole dollars above. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return `$${value < 10 ? value.toFixed(2) : fmt(value)}`;
}

/** One model and its routes (targets), best first in the order given. */
export interface ModelGroup {
  modelKey: string;
  /** The model's name as its first route states it (display only: it may be any text). */
  model: string;
  targetIds: string[];
}

/** Targets grouped by model key, groups in the order of their best target in `orderedIds`. */
export function modelGroups(targets: TargetView[], orderedIds: string[]): ModelGroup[] {
  const byId = new Map(targets.map((t) => [t.id, t]));
  const groups = new Map<string, ModelGroup>();
  for (const id of orderedIds) {
    const t = byId.get(id);
    if (!t) continue;
    const key = targetModelKey(t);
    const group = groups.get(key) ?? { modelKey: key, model: t.model, targetIds: [] };
    group.targetIds.push(id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** Every concurrency level any target ran in its latest run or its standing, ascending. */
export function levelsRun(targets: TargetView[]): number[] {
  const all = new Set<number>();
  for (const t of targets) {
    for (const l of [...t.latest.levels, ...t.standing.levels]) {
      const n = concurrencyOf(l.load);
      if (n !== null) all.add(n);
    }
  }
  return [...all].sort((a, b) => a - b);
}

/** One target at one concurrency: the standing's estimates and the latest run's rates and cost. */
export interface AtLevelRow {
  id: string;
  label: string;
  model: string;
  modelKey: string;
  simulated: boolean;
  rank: number | null;
  rankLabel: string;
  /** True when the standing ranks the level (valid in at least half of its runs). */
  ranked: boolean;
  perStream: Estimate | null;
  ttftP50Ms: Estimate | null;
  ttftP95Ms: Estimate | null;
  /** The latest run's answer TTFT p50 when it differs from its TTFT p50 by more than 1 % (reasoning models). */
  ttftAnswerP50Ms: number | null;
  aggregate: Estimate | null;
  goodput: Estimate | null;
  /** Non-ok / sent and 429 / sent of the latest run at this level; null when it did not run it. */
  errorRate: number | null;
  rateLimitRate: number | null;
  /** The latest run's level was valid; null when the latest run did not run this level. */
  valid: boolean | null;
  invalidReasons: string[];
  meteredUsdPerMillionOutputTokens: number | null;
  declaredUsdPerMillionOutputTokens: number | null;
}

function latestLevel(t: TargetView, n: number): LevelFigures | undefined {
  return t.latest.levels.find((l) => concurrencyOf(l.load) === n);
}

/**
 * The leaderboard at concurrency n: every target that ran n, ranked by the standing's per-stream tok/s
 * p50 at n (shared ranks where intervals overlap); levels the standing does not rank are shown unranked, last.
 */
export function atLevelRows(targets: TargetView[], n: number): AtLevelRow[] {
  const rows = targets.flatMap((t): AtLevelRow[] => {
    const st: StandingLevel | undefined = t.standing.levels.find((l) => concurrencyOf(l.load) === n);
    const last = latestLevel(t, n);
    if (!st && !last) return [];
    const ranked = st?.ranked ?? false;
    const answer = last?.ttftAnswerP50Ms ?? null;
    const ttft = last?.ttftP50Ms ?? null;
    return [
      {
        id: t.id,
        label: t.label,
        model: t.model,
        modelKey: targetModelKey(t),
        simulated: t.simulated,
        rank: null,
        rankLabel: "—",
        ranked,
        perStream: st?.perStreamOutputTokensPerSecondP50 ?? null,
        ttftP50Ms: st?.ttftP50Ms ?? null,
        ttftP95Ms: st?.ttftP95Ms ?? null,
        ttftAnswerP50Ms:
          answer !== null && ttft !== null && Math.abs(answer - ttft) > 0.01 * Math.max(ttft, 1) ? answer : null,
        aggregate: st?.aggregateOutputTokensPerSecond ?? null,
        goodput: st?.goodputOutputTokensPerSecond ?? null,
        errorRate: last && last.sent > 0 ? (last.sent - last.ok) / last.sent : null,
        rateLimitRate: last && last.sent > 0 ? last.rateLimited / last.sent : null,
        valid: last ? last.valid : null,
        invalidReasons: [...new Set([...(last?.invalidReasons ?? []), ...(ranked ? [] : (st?.invalidReasons ?? []))])],
        meteredUsdPerMillionOutputTokens: last?.meteredUsdPerMillionOutputTokens ?? null,
        declaredUsdPerMillionOutputTokens: last?.declaredUsdPerMillionOutputTokens ?? null,
      },
    ];
  });
  const ranks = ranksBy(rows.map((r) => ({ id: r.id, estimate: r.ranked ? r.perStream : null })));
  const all = [...ranks.values()];
  for (const r of rows) {
    r.rank = ranks.get(r.id) ?? null;
    r.rankLabel = rankLabel(r.rank, all);
  }
  return rows.sort(
    (a, b) =>
      (a.rank ?? Number.POSITIVE_INFINITY) - (b.rank ?? Number.POSITIVE_INFINITY) ||
      (b.perStream?.median ?? -1) - (a.perStream?.median ?? -1) ||
      a.id.localeCompare(b.id),
  );
}

/**
 * The sentence under a model page's curves naming the routes and levels they leave out as invalid
 * (a route whose latest run has no valid level, the invalid levels of the others); null when none is.
 */
export function curvesLeftOut(targets: TargetView[]): string | null {
  const parts = targets.flatMap((t) => {
    const invalid = t.latest.levels.filter((l) => !l.valid).map((l) => loadWords(l.load));
    if (invalid.length === 0) return [];
    return invalid.length === t.latest.levels.length
      ? [`“${t.label}”, whose latest run has no valid level`]
      : [`the invalid ${invalid.length === 1 ? "level" : "levels"} of “${t.label}” (${invalid.join(", ")})`];
  });
  return parts.length
    ? `Left out, as invalid levels are never drawn: ${parts.join("; ")}. The tables below have their figures, marked valid or not.`
    : null;
}
