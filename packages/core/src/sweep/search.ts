/**
 * @module What a searched sweep adds to the levels it runs (docs/methodology.md#searched-levels): each
 * probed level's judge (its SLO decision at the search's looks, search/decide.ts), its `probe`, the
 * figures the search (search/machine.ts) reads of it, and the run document's order (levels sorted by
 * load, numbered so) and `summary.search`.
 */
import type { Workload } from "../config/index.ts";
import type { LoopResult } from "../drive/loop.ts";
import { DEFAULT_SEARCH_CAP_FACTOR, DEFAULT_SEARCH_CONFIDENCE, type LevelSearchSettings } from "../drive/search.ts";
import type { LoadAxis } from "../kinds/index.ts";
import { summaryUnits } from "../kinds/index.ts";
import { type Level, loadPosition, type Probe, type Sample, type SearchRecord, type Summary } from "../run/index.ts";
import { type DrawPlan, decideLevel, looksOf } from "../search/decide.ts";
import type { ProbedFigures, SearchBounds, SearchOutcome } from "../search/machine.ts";
import { toSample } from "./sample.ts";

/** A searched workload's settings with their defaults filled in, and its draw plan's batch and cap. */
export interface SearchPlan {
  axis: LoadAxis;
  bounds: SearchBounds;
  confidence: number;
  /** Measured requests per look (`requestsPerLevel`). */
  batch: number;
  /** Measured requests a probed level may draw at most. */
  cap: number;
}

/** The plan of a searched workload (its `levelSearch`). */
export function searchPlan(workload: Workload, axis: LoadAxis, settings: LevelSearchSettings): SearchPlan {
  const batch = workload.requestsPerLevel ?? 64;
  return {
    axis,
    bounds: { from: settings.from, to: settings.to, resolution: settings.resolution, whole: axis === "concurrency" },
    confidence: settings.confidence ?? DEFAULT_SEARCH_CONFIDENCE,
    batch,
    cap: Math.max(batch, settings.maxRequestsPerLevel ?? DEFAULT_SEARCH_CAP_FACTOR * batch),
  };
}

/** A probed level's draw plan: a closed loop's N users each send twice before any look. */
export function drawPlan(plan: SearchPlan, users: number | null): DrawPlan {
  return { batch: plan.batch, cap: plan.cap, minimum: 2 * (users ?? 0) };
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

  /** `LevelContext.judge`: true once a look decided (`meets` or `misses`), or the cap was reached. */
  readonly judge = (results: readonly LoopResult[]): boolean => {
    if (this.decided) return true;
    const drawn = results.length;
    if (!this.looks.includes(drawn)) return false;
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

/** What the search reads of a probed level. */
export function probedFigures(level: Level): ProbedFigures {
  return {
    load: loadPosition(level.load),
    decision: level.probe?.decision ?? "undecided",
    valid: level.valid,
    aggregate: level.aggregateOutputTokensPerSecond,
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
 * The most levels a search can run: the doubling bracket (`doublingLadder`), then a bisection of
 * capacity and one of the knee, each halving a gap of at most the top doubling step (whole users:
 * to its integer width; rates: to the resolution in log2 steps).
 */
export function searchLevelBound(bounds: SearchBounds): number {
  const ladder = doublingLadder(bounds);
  const top = ladder.at(-1) as number;
  const below = ladder.at(-2) ?? bounds.from;
  const halvings = bounds.whole
    ? Math.ceil(Math.log2(Math.max(1, top - below)))
    : Math.ceil(Math.log2(Math.log(top / below) / Math.log(1 + bounds.resolution))) + 1;
  return ladder.length + 2 * Math.max(0, halvings);
}

/** Levels of the doubling ladder from..to (the last at `to`): the saving's baseline. */
export function doublingLadder(bounds: SearchBounds): number[] {
  const out: number[] = [];
  for (let x = bounds.from; x < bounds.to; x *= 2) out.push(bounds.whole ? Math.round(x) : x);
  out.push(bounds.to);
  return out;
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
    axis: plan.axis === "rate" ? "rate" : "concurrency",
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
