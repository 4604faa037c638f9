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
import { doublingLadder, type SearchPlan } from "../search/bounds.ts";
import { type DrawPlan, decideLevel, looksOf, minimumRequests } from "../search/decide.ts";
import type { ProbedFigures, SearchOutcome } from "../search/machine.ts";
import { toSample } from "./sample.ts";

/**
 * A probed level's draw plan: its first look after `minimumRequests` (5 at the default confidence, and
 * at least a closed loop's 2N), and no sooner than `validMinimum`, the fewest its level is valid with
 * (an open loop's `MIN_OPEN_LOOP_REQUESTS`: a level decided on 5 was invalid, and read as a miss at
 * `from`), so a level far from the SLO stops early; then looks up to the cap.
 */
export function drawPlan(plan: SearchPlan, users: number | null, validMinimum = 0): DrawPlan {
  const minimum = Math.min(plan.cap, Math.max(minimumRequests(plan.confidence, users), validMinimum));
  return { batch: plan.batch, cap: plan.cap, minimum };
}

/** The fewest requests a level of `load` is valid with: an open loop's rate is measured from its sends. */
export function validMinimumOf(load: Load): number {
  return offeredRate(load) === null ? 0 : MIN_OPEN_LOOP_REQUESTS;
}

/** The judge of one probed level: after each measured result, has a look been reached that decides? */
export class ProbeJudge {
  private decided: Pick<Probe, "decision" | "ttftP95UpperMs" | "perStreamP50LowerTokensPerSecond"> | null = null;
  private drawnAtDecision = 0;
  private readonly looks: number[];

  constructor(
    private readonly workload: Pick<Workload, "slo">,
    private readonly confidence: number,
    private readonly plan: DrawPlan,
  ) {
    this.looks = looksOf(plan);
  }

  /**
   * `LevelContext.judge`: true once a look decided (`meets` or `misses`), or the cap was reached. A look
   * before `requestsPerLevel` whose failures are over `MAX_FAILURE_RATE` draws on instead: one broken
   * stream in the 11 requests of a level far from the SLO would make it invalid, and stop the sweep, on
   * a share the failure rule never meant to judge on so few (at requestsPerLevel it judges as a ladder's).
   */
  readonly judge = (results: readonly LoopResult[]): boolean => {
    if (this.decided) return true;
    const drawn = results.length;
    if (!this.looks.includes(drawn)) return false;
    if (drawn < this.plan.batch && failedShare(results) > MAX_FAILURE_RATE) return false;
    const samples = results.map((r) => toSample(r.raw, 0, r.index, 0));
    const d = this.decide(samples, drawn);
    if (d.decision === "pending") return false;
    this.decided = { ...d, decision: d.decision };
    this.drawnAtDecision = drawn;
    return true;
  };

  /** The level's probe, from the look that decided, else from all its samples at the look they reach. */
  probe(order: number, samples: readonly Sample[]): Probe {
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
    const ok = samples.filter((s) => s.outcome === "ok");
    const ttft = ok.flatMap((s) => (s.ttftMs === null ? [] : [s.ttftMs]));
    const perStream = ok.flatMap((s) => (s.outputTokensPerSecond === null ? [] : [s.outputTokensPerSecond]));
    return decideLevel(ttft, perStream, this.workload.slo, this.confidence, drawn, this.plan);
  }
}

/** The outcomes the failure rule counts (`failuresOf`): not 429s or route mismatches, which have rules of their own. */
const FAILED = new Set(["http_error", "timeout", "network", "incomplete"]);

/** Share of a level's results so far that failed. */
function failedShare(results: readonly LoopResult[]): number {
  return results.length === 0 ? 0 : results.filter((r) => FAILED.has(r.raw.outcome)).length / results.length;
}

/** What the search reads of a probed level. */
export function probedFigures(level: Level): ProbedFigures {
  return {
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
    ladderRequests:
      doublingLadder(plan.bounds).length * ((workload.requestsPerLevel ?? plan.batch) + workload.warmupRequests),
  };
  const out: Summary = { ...summary, search: record };
  if (units.capacity) out[units.capacity] = outcome.capacity.value;
  if (units.knee) {
    const knee = outcome.knee.value;
    out[units.knee] = knee;
    out.saturated = knee !== null;
  }
  return out;
}
