/**
 * @module What a searched sweep adds to the levels it runs (docs/methodology.md#searched-levels): each
 * probed level's judge (its SLO decision at the search's looks, search/decide.ts), its `probe`, the
 * figures the search (search/machine.ts) reads of it, and the run document's order (levels sorted by
 * load, numbered so) and `summary.search`.
 */
import type { Workload } from "../config/index.ts";
import type { LoopResult } from "../drive/loop.ts";
import { offeredRate, summaryUnits } from "../kinds/index.ts";
import { MAX_FAILURE_RATE, MIN_OPEN_LOOP_REQUESTS } from "../metrics/index.ts";
import {
  type Level,
  type Load,
  loadPosition,
  type Probe,
  type Sample,
  type SearchRecord,
  type Summary,
} from "../run/index.ts";
import { ladderRequests, type SearchPlan } from "../search/bounds.ts";
import {
  type DrawPlan,
  decideLevel,
  groupSize,
  looksOf,
  minimumRequests,
  rampOf,
  ttftBoundLook,
  ttftRetryLook,
} from "../search/decide.ts";
import type { ProbedFigures, SearchOutcome } from "../search/machine.ts";
import { toSample } from "./sample.ts";

/**
 * A probed level's draw plan: its first look after `minimumRequests` (its ramp and two per-stream
 * groups: 10, or a closed loop's 4N), and no sooner than `validMinimum`, the fewest its level is valid
 * with (an open loop's `MIN_OPEN_LOOP_REQUESTS`: a level decided on 5 was invalid, and read as a miss
 * at `from`), so a level far from the SLO stops early; then looks up to the cap, and one where a
 * `meets` that must bound TTFT p95 (`ttftBound`) first can be called (`ttftBoundLook`). A level not
 * `judged` (above a load that missed, run for the knee's aggregate) sends a count: 2N, so its steady
 * window holds a round after the first N sends, and no fewer than `validMinimum` or the 20 whose one
 * broken stream is within the failure rule's 5 % (on fewer, one would make the level invalid and stop
 * the sweep).
 */
export function drawPlan(
  plan: SearchPlan,
  users: number | null,
  {
    validMinimum = 0,
    judged = true,
    ttftBound = true,
  }: { validMinimum?: number; judged?: boolean; ttftBound?: boolean } = {},
): DrawPlan {
  const group = groupSize(users);
  const ramp = rampOf(users);
  const minimum = Math.min(
    plan.cap,
    judged
      ? Math.max(minimumRequests(users), validMinimum)
      : Math.max(2 * (users ?? 0), validMinimum, Math.ceil(1 / MAX_FAILURE_RATE)),
  );
  return {
    batch: plan.batch,
    cap: plan.cap,
    minimum,
    group,
    ramp,
    ttftBound,
    ...(judged && ttftBound
      ? {
          meetLook: Math.max(minimum, ttftBoundLook(plan.confidence, group, ramp)),
          retryLook: Math.max(minimum, ttftRetryLook(plan.confidence, ramp)),
        }
      : {}),
  };
}

/** The fewest requests a level of `load` is valid with: an open loop's rate is measured from its sends. */
export function validMinimumOf(load: Load): number {
  return offeredRate(load) === null ? 0 : MIN_OPEN_LOOP_REQUESTS;
}

/**
 * The judge of one probed level: after each measured result, has a look been reached that decides? A
 * look at n reads the first n sends, each ended (or failed), in the order sent: the requests still in
 * flight are the slow ones, and a look that read the first n to finish instead would leave them out in
 * favour of later, faster ones, and lean toward `meets`.
 */
export class ProbeJudge {
  private decided: Pick<Probe, "decision" | "ttftP95UpperMs" | "perStreamP50LowerTokensPerSecond"> | null = null;
  private drawnAtDecision = 0;
  private readonly looks: number[];
  /** Measured results by send index, as they end. */
  private readonly bySend: LoopResult[] = [];
  private seen = 0;
  /** Sends 0 .. ended - 1 have all ended. */
  private ended = 0;
  /** The last look read. */
  private looked = 0;

  constructor(
    private readonly workload: Pick<Workload, "slo">,
    private readonly confidence: number,
    private readonly plan: DrawPlan,
    /** False above a load that missed (`LoadSearch.judges`): the level sends its plan's minimum, and decides nothing. */
    private readonly judged = true,
  ) {
    this.looks = looksOf(plan);
  }

  /** The measured requests the level may send: the cap, or a level not judged its minimum. */
  get requests(): number {
    return this.judged ? this.plan.cap : this.plan.minimum;
  }

  /**
   * `LevelContext.count`: a level not judged sends its minimum and 20 more for each request that failed
   * so far, so one broken stream keeps it within the failure rule's 5 % (as a judged level's looks do),
   * where a fixed count of 2N would let two broken streams among 32 stop the sweep.
   */
  readonly requestsAfter = (results: readonly LoopResult[]): number =>
    this.judged
      ? this.plan.cap
      : Math.min(
          this.plan.cap,
          this.plan.minimum + Math.ceil(1 / MAX_FAILURE_RATE) * results.filter((r) => FAILED.has(r.raw.outcome)).length,
        );

  /**
   * `LevelContext.judge`: true once a look decided (`meets` or `misses`), or the cap was reached. A look
   * before `requestsPerLevel` whose failures are over `MAX_FAILURE_RATE` draws on instead: one broken
   * stream in the 11 requests of a level far from the SLO would make it invalid, and stop the sweep, on
   * a share the failure rule never meant to judge on so few (at requestsPerLevel it judges as a ladder's).
   */
  readonly judge = (results: readonly LoopResult[]): boolean => {
    if (this.decided) return true;
    for (; this.seen < results.length; this.seen++) {
      const r = results[this.seen] as LoopResult;
      this.bySend[r.index] = r;
    }
    while (this.bySend[this.ended]) this.ended++;
    if (!this.judged) return false;
    const look = this.looks.filter((n) => n > this.looked && n <= this.ended).at(-1);
    if (look === undefined) return false;
    this.looked = look;
    const judged = this.bySend.slice(0, look);
    // (Over every request ended so far too: the level is valid or not with all it sent.)
    if (look < this.plan.batch && Math.max(failedShare(judged), failedShare(results)) > MAX_FAILURE_RATE) return false;
    const d = this.decide(
      judged.map((r) => toSample(r.raw, 0, r.index, 0)),
      look,
    );
    if (d.decision === "pending") return false;
    this.decided = { ...d, decision: d.decision };
    this.drawnAtDecision = look;
    return true;
  };

  /** The level's probe, from the look that decided, else from all its samples at the look they reach. */
  probe(order: number, samples: readonly Sample[]): Probe {
    if (!this.judged)
      return {
        order,
        decision: "not_judged",
        ttftP95UpperMs: null,
        perStreamP50LowerTokensPerSecond: null,
        requests: samples.length,
      };
    if (this.decided) return { order, ...this.decided, requests: this.drawnAtDecision };
    const d = this.decide(samples, samples.length);
    return {
      order,
      decision: d.decision === "pending" ? "undecided" : d.decision,
      ttftP95UpperMs: d.ttftP95UpperMs,
      perStreamP50LowerTokensPerSecond: d.perStreamP50LowerTokensPerSecond,
      requests: samples.length,
    };
  }

  private decide(samples: readonly Sample[], drawn: number) {
    // By send: the ramp and the groups are counted in sends. A failed request missed the SLO: its TTFT
    // counts as +Infinity and its speed as 0.
    const ok = (s: Sample) => s.outcome === "ok";
    const ttft = samples.map((s) => (ok(s) ? s.ttftMs : Number.POSITIVE_INFINITY));
    const perStream = samples.map((s) => (ok(s) ? s.outputTokensPerSecond : 0));
    return decideLevel(ttft, perStream, this.workload.slo, this.confidence, drawn, this.plan);
  }
}

/** The outcomes the failure rule counts (`failuresOf`): not 429s or route mismatches, which have rules of their own. */
const FAILED = new Set(["http_error", "timeout", "network", "incomplete"]);

/** Share of a level's results so far that failed. */
function failedShare(results: readonly LoopResult[]): number {
  return results.length === 0 ? 0 : results.filter((r) => FAILED.has(r.raw.outcome)).length / results.length;
}

/** What the search reads of a probed level (its TTFT bound against the SLO's limit). */
export function probedFigures(level: Level, slo: Pick<Workload["slo"], "maxTtftMs">): ProbedFigures {
  const upper = level.probe?.ttftP95UpperMs ?? null;
  return {
    ttftMet: slo.maxTtftMs !== null && upper !== null && upper <= slo.maxTtftMs,
    load: loadPosition(level.load),
    decision: level.probe?.decision ?? "undecided",
    valid: level.valid,
    // Over its judged window: a level cut short at a look drains for as long again, which would bend its
    // aggregate by how early it was decided rather than by the load.
    aggregate: level.steadyAggregateOutputTokensPerSecond ?? level.aggregateOutputTokensPerSecond,
    ttftP50Ms: level.ttftMs.p50,
  };
}

/**
 * A searched sweep's levels and samples as the run document keeps them: levels sorted by load and
 * numbered 1.. in that order (the number every reader takes for "level 1 is the lowest load"), their
 * samples renumbered with them; `probe.order` keeps the order they ran.
 */
export function byLoad(levels: readonly Level[], samples: readonly Sample[]): { levels: Level[]; samples: Sample[] } {
  const sorted = [...levels].sort((a, b) => loadPosition(a.load) - loadPosition(b.load));
  const renumber = new Map(sorted.map((l, i) => [l.level, i + 1]));
  return {
    levels: sorted.map((l) => ({ ...l, level: renumber.get(l.level) ?? l.level })),
    samples: samples.map((s) => ({ ...s, level: renumber.get(s.level) ?? s.level })),
  };
}

/** The reverse of `byLoad` for a continued search: levels numbered in the order they ran (`probe.order`). */
export function byOrder(levels: readonly Level[], samples: readonly Sample[]): { levels: Level[]; samples: Sample[] } {
  const sorted = [...levels].sort((a, b) => (a.probe?.order ?? a.level) - (b.probe?.order ?? b.level));
  const renumber = new Map(sorted.map((l, i) => [l.level, i + 1]));
  return {
    levels: sorted.map((l) => ({ ...l, level: renumber.get(l.level) ?? l.level })),
    samples: samples.map((s) => ({ ...s, level: renumber.get(s.level) ?? s.level })),
  };
}

/**
 * The summary of a searched sweep: the ladder's summary over the probed levels, its capacity and knee
 * (in the load's kind's fields) the search's, and `search` with what it spent (every request sent,
 * warm-ups included; the tokens of the measured requests, as warm-ups' are not recorded).
 */
export function searchedSummary(
  summary: Summary,
  levels: readonly Level[],
  samples: readonly Sample[],
  plan: SearchPlan,
  outcome: SearchOutcome,
  workload: Pick<Workload, "warmupRequests" | "requestsPerLevel">,
): Summary {
  const first = levels[0];
  const units = first ? summaryUnits(first.load) : { knee: null, capacity: null };
  const record: SearchRecord = {
    axis: plan.axis,
    from: plan.bounds.from,
    to: plan.bounds.to,
    resolution: plan.bounds.resolution,
    confidence: plan.confidence,
    capacity: outcome.capacity,
    knee: outcome.knee,
    stop: outcome.stop,
    requests: levels.reduce((sum, l) => sum + l.requests.sent + workload.warmupRequests, 0),
    promptTokens: samples.reduce((sum, s) => sum + (s.promptTokens ?? 0), 0),
    outputTokens: samples.reduce((sum, s) => sum + (s.completionTokens ?? 0), 0),
    ladderRequests: ladderRequests(plan.bounds, workload.requestsPerLevel ?? plan.batch, workload.warmupRequests),
    budget: plan.budget,
  };
  const out: Summary = {
    ...summary,
    search: record,
    ...(units.capacity
      ? {
          capacityBracket: {
            kind: "searched" as const,
            lo: outcome.capacity.lo,
            hi: outcome.capacity.hi,
            confidence: plan.confidence,
          },
        }
      : {}),
  };
  if (units.capacity) out[units.capacity] = outcome.capacity.value;
  if (units.knee) {
    const knee = outcome.knee.value;
    out[units.knee] = knee;
    out.saturated = knee !== null;
  }
  return out;
}
