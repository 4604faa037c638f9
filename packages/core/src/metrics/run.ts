/** @module The headline figures of a run (docs/methodology.md, per run): `summarizeRun` with its knee, and `levelStop`; pure. */
import { summaryUnits } from "../kinds/index.ts";
import {
  concurrencyOf,
  headlineAggregate,
  type Level,
  loadAxis,
  loadPosition,
  loadWords,
  type Outcome,
  type Stop,
  type Summary,
} from "../run/index.ts";
import {
  EARLY_FAILURE_REQUESTS,
  failureBreakdown,
  failuresOf,
  fmt,
  invalidCodes,
  MAX_FAILURE_RATE,
  MAX_RATE_LIMITED_RATE,
} from "./validity.ts";

/** Where a level's headline aggregate was read (`headlineAggregate`). */
type Window = "steady" | "whole_level" | null;

/** The knee is where no higher valid level raises aggregate tok/s by more than this share (0.15 = 15 %). */
export const KNEE_GAIN_THRESHOLD = 0.15;

/** True when `higher` raises aggregate tok/s by more than `KNEE_GAIN_THRESHOLD` over `base`. */
function raisesBeyondKnee(base: number, higher: number): boolean {
  // A ratio, not base * 1.15: 100 * 1.15 is 114.99999999999999 in floating point, which would make exactly +15 % a raise.
  if (base <= 0) return higher > 0;
  return higher / base > 1 + KNEE_GAIN_THRESHOLD;
}

/**
 * The knee of a curve of aggregate tok/s in ascending order of load (concurrency, or an open loop's
 * offered rate): the index of the first point that no later point out-raises by more than
 * `KNEE_GAIN_THRESHOLD`; null when that point is the last (aggregate still climbing at the top, or a
 * single point), which is `saturated: false`. The run summary and the standing share it.
 */
export function kneeIndex(aggregates: readonly number[]): number | null {
  for (let i = 0; i < aggregates.length; i++) {
    const base = aggregates[i] as number;
    if (aggregates.slice(i + 1).some((a) => raisesBeyondKnee(base, a))) continue;
    return i < aggregates.length - 1 ? i : null;
  }
  return null;
}

/** What one of a level's first requests ended with, for `levelStop`'s words (warm-up requests have no sample). */
export interface EarlyResult {
  outcome: Outcome;
  httpStatus: number | null;
  error: string | null;
}

const STOP_NOTE = "the sweep ran no higher level";

/**
 * Why the sweep must run no level above this one, or null: the level is invalid because of rate limits
 * (429s over `MAX_RATE_LIMITED_RATE`) or failures (over `MAX_FAILURE_RATE`, or its first requests all
 * failed, code `ended_early`, read with `invalidCodes` so an older stored level counts too). More concurrency cannot make such a level valid. Rate limits win when both
 * hold. `unreachable` when no request of the level got any answer (only network errors and timeouts
 * without an HTTP status); `early` are the level's first results, warm-up included, when the sweep kept them.
 */
export function levelStop(level: Level, early: EarlyResult[] = []): Stop | null {
  if (level.valid) return null;
  const r = level.requests;
  const ref = { level: level.level, load: level.load };
  const at = loadWords(level.load);
  if (r.sent > 0 && r.rateLimited / r.sent > MAX_RATE_LIMITED_RATE)
    return {
      ...ref,
      reason: "rate_limited",
      detail: `rate-limited from ${at}: ${r.rateLimited} of ${r.sent} requests got 429 (${fmt((r.rateLimited / r.sent) * 100)} %, over ${fmt(MAX_RATE_LIMITED_RATE * 100)} %); ${STOP_NOTE}`,
    };
  const failures = failuresOf(r);
  const endedEarly = invalidCodes(level).includes("ended_early");
  const earlyReason = level.invalid.find((x) => x.code === "ended_early");
  const first = earlyReason?.code === "ended_early" ? earlyReason.detail.firstRequests : EARLY_FAILURE_REQUESTS;
  if (!(r.sent > 0 && failures / r.sent > MAX_FAILURE_RATE) && !endedEarly) return null;
  const noAnswer = (e: EarlyResult) => e.httpStatus === null && (e.outcome === "network" || e.outcome === "timeout");
  const answeredInLevel = r.ok + r.rateLimited + r.routeMismatch + r.httpError + r.incomplete > 0;
  const unreachable = !answeredInLevel && early.every(noAnswer) && (r.sent > 0 || early.length > 0);
  const firstError = early.find((e) => e.error)?.error ?? null;
  const status = early.find((e) => e.httpStatus !== null)?.httpStatus ?? null;
  const cause = firstError ? `; first error: ${firstError}` : status !== null ? `; HTTP ${status}` : "";
  const counts = r.sent > 0 ? `${failures} of ${r.sent} requests failed (${failureBreakdown(r) || "none"})` : "";
  if (unreachable)
    return {
      ...ref,
      reason: "unreachable",
      detail: `unreachable at ${at}: no request got an answer${counts ? `; ${counts}` : ""}${cause}; ${STOP_NOTE}`,
    };
  return {
    ...ref,
    reason: "failures",
    detail: `failing from ${at}: ${counts || `its first ${first} requests failed`}${endedEarly && counts ? `, its first ${first} requests (warm-up included) all failed` : ""}${cause}; ${STOP_NOTE}`,
  };
}

/**
 * A ladder's capacity as its bracket `[lo, hi)`: lo the highest step that met the SLO, hi the next
 * step run above it, null when lo is the top step (not measured above); when no step met, lo is null
 * and hi the lowest valid step (null without one: nothing was judged). Steps are loads, any order.
 */
export function ladderBracket(
  steps: readonly number[],
  validSteps: readonly number[],
  capacity: number | null,
): Summary["capacityBracket"] {
  const ascending = (xs: readonly number[]) => [...new Set(xs)].sort((a, b) => a - b);
  const hi =
    capacity === null ? (ascending(validSteps)[0] ?? null) : (ascending(steps).find((x) => x > capacity) ?? null);
  return { kind: "ladder", lo: capacity, hi, confidence: null };
}

/** The stop of the lowest level that calls for one, or null. */
function firstStop(levels: Level[]): Stop | null {
  for (const l of [...levels].sort((a, b) => a.level - b.level)) {
    const stop = levelStop(l);
    if (stop) return stop;
  }
  return null;
}

/**
 * The headline figures of a run (docs/methodology.md, per run). Only valid levels with an aggregate
 * enter `peak` and the knee, each with its headline aggregate (`headlineAggregate`: its steady
 * window's where it had one, else its whole level's, which `peak.window` marks); `singleStream` and the baseline of `scalingEfficiency` come from the
 * concurrency-1 level only when it is valid (an invalid level keeps its data in `levels` but is never
 * ranked, so `singleStream` is then null). Rates are shares (0..1) of all sent requests. `stop` is
 * `options.stop` when the sweep gives it, else the first level's `levelStop`.
 *
 * The knee (`kneeIndex`): walking the valid levels in ascending concurrency, the first level L such
 * that no higher valid level's aggregate exceeds L's by more than `KNEE_GAIN_THRESHOLD`. When that L
 * is the top valid level (aggregate still climbing at the top, or a single valid level),
 * `kneeConcurrency` is null and `saturated` false.
 *
 * `capacity` is the highest valid level that meets the SLO (null when none does). `goodputPeak` is
 * the valid level with the most goodput (null when no valid level delivered any).
 *
 * The levels are walked along their load axis (`loadPosition`): a run whose kind reads its knee in requests/s (`kneeInRate`, an open loop) is
 * read in offered rate, so its knee is `kneeRequestsPerSecond` (`kneeConcurrency` null: a concurrency
 * knee is a closed-loop figure) and `capacityRequestsPerSecond` is the highest rate that meets the
 * SLO (`capacity` null). It has no single-stream figure either: its first level is a rate, not one
 * user alone. A closed loop's summary has no `kneeRequestsPerSecond`. `peak`, `goodputPeak` and
 * `stop` name their level by number and load.
 */
export function summarizeRun(levels: Level[], options: { stop?: Stop | null } = {}): Summary {
  // One user alone: a level of N = 1 (a kind without users has no single-stream figure).
  const single = levels.find((l) => concurrencyOf(l.load) === 1 && l.valid && l.requests.ok > 0);
  const singleStream = single
    ? {
        outputTokensPerSecond: single.perStream.outputTokensPerSecond.p50,
        decodeTokensPerSecond: single.perStream.decodeTokensPerSecond.p50,
        ttftP50Ms: single.ttftMs.p50,
        ttftP95Ms: single.ttftMs.p95,
      }
    : null;

  // The curve runs along the run's load axis (concurrency, or an open loop's offered rate); a level off it (none is written so) is left out.
  const axis = levels[0] ? loadAxis(levels[0].load) : "concurrency";
  // Each level's headline aggregate: its steady window's where it had one, else its whole level's (marked).
  const ranked = levels
    .filter((l) => l.valid && loadAxis(l.load) === axis)
    .map((l) => ({ level: l, headline: headlineAggregate(l) }))
    .filter(
      (x): x is { level: Level; headline: { outputTokensPerSecond: number; window: Window } } =>
        x.headline.outputTokensPerSecond !== null,
    )
    .sort((a, b) => loadPosition(a.level.load) - loadPosition(b.level.load));

  let peakLevel: (typeof ranked)[number] | undefined;
  for (const l of ranked) {
    if (peakLevel === undefined || l.headline.outputTokensPerSecond > peakLevel.headline.outputTokensPerSecond)
      peakLevel = l;
  }
  const peak: Summary["peak"] = peakLevel
    ? {
        level: peakLevel.level.level,
        load: peakLevel.level.load,
        aggregateOutputTokensPerSecond: peakLevel.headline.outputTokensPerSecond,
        perStreamOutputTokensPerSecond: peakLevel.level.perStream.outputTokensPerSecond.p50,
        window: peakLevel.headline.window,
      }
    : null;

  const knee = kneeIndex(ranked.map((l) => l.headline.outputTokensPerSecond));
  const kneeLevel = knee === null ? undefined : ranked[knee]?.level;
  const saturated = kneeLevel !== undefined;
  // The knee in its kind's unit (users, or an open loop's requests/s); a replay's speedup is neither.
  const kneeUnit = levels[0] ? summaryUnits(levels[0].load).knee : "kneeConcurrency";
  const kneeAt = kneeLevel ? loadPosition(kneeLevel.load) : null;
  const kneeConcurrency = kneeUnit === "kneeConcurrency" ? kneeAt : null;
  const kneeRequestsPerSecond = kneeUnit === "kneeRequestsPerSecond" ? kneeAt : null;

  const singleAggregate = single ? headlineAggregate(single).outputTokensPerSecond : null;
  const peakUsers = peak ? concurrencyOf(peak.load) : null;
  const scalingEfficiency =
    peak && peakUsers !== null && singleAggregate !== null && singleAggregate > 0
      ? peak.aggregateOutputTokensPerSecond / (peakUsers * singleAggregate)
      : null;

  let sent = 0;
  let ok = 0;
  let rateLimited = 0;
  for (const l of levels) {
    sent += l.requests.sent;
    ok += l.requests.ok;
    rateLimited += l.requests.rateLimited;
  }

  let capacity: number | null = null;
  let capacityRequestsPerSecond: number | null = null;
  let goodputPeak: Summary["goodputPeak"] = null;
  for (const l of levels) {
    if (!l.valid) continue;
    // Capacity in its kind's unit: the most users, or the highest rate, that met the SLO.
    const unit = summaryUnits(l.load).capacity;
    if (l.meetsSlo === true && unit === "capacityRequestsPerSecond")
      capacityRequestsPerSecond = Math.max(capacityRequestsPerSecond ?? 0, loadPosition(l.load));
    else if (l.meetsSlo === true && unit === "capacity") capacity = Math.max(capacity ?? 0, loadPosition(l.load));
    const goodput = l.goodputOutputTokensPerSecond ?? 0;
    if (goodput > 0 && (goodputPeak === null || goodput > goodputPeak.goodputOutputTokensPerSecond))
      goodputPeak = { level: l.level, load: l.load, goodputOutputTokensPerSecond: goodput };
  }

  const capacityUnit = levels[0] ? summaryUnits(levels[0].load).capacity : null;
  const capacityBracket =
    capacityUnit === null
      ? null
      : (() => {
          const onAxis = levels.filter((l) => summaryUnits(l.load).capacity === capacityUnit);
          return ladderBracket(
            onAxis.map((l) => loadPosition(l.load)),
            onAxis.filter((l) => l.valid).map((l) => loadPosition(l.load)),
            capacityUnit === "capacity" ? capacity : capacityRequestsPerSecond,
          );
        })();

  return {
    singleStream,
    peak,
    kneeConcurrency,
    ...(kneeUnit === "kneeRequestsPerSecond" ? { kneeRequestsPerSecond } : {}),
    saturated,
    scalingEfficiency,
    errorRate: sent > 0 ? (sent - ok) / sent : 0,
    rateLimitRate: sent > 0 ? rateLimited / sent : 0,
    valid: levels.length > 0 && levels.every((l) => l.valid),
    capacity,
    capacityRequestsPerSecond,
    capacityBracket,
    goodputPeak,
    stop: options.stop !== undefined ? options.stop : firstStop(levels),
    search: null,
  };
}
