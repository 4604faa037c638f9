/**
 * @module Where a sweep's levels come from: a ladder's plan, in order, or a search's state machine
 * (docs/methodology.md#searched-levels), as it asks. Each is a `LevelSource` behind the one sweep loop
 * (./index.ts), which measures every level the same way (its threads, its stop, its saves, its
 * progress) and tells the source what it measured; a continued sweep's source takes up the levels run
 * before.
 */
import type { Workload } from "../config/index.ts";
import { concurrencyOf, documentLoad, levelAt, userLevels } from "../kinds/index.ts";
import type { LevelPlan } from "../plan/index.ts";
import { type Level, loadPosition, type Stop } from "../run/index.ts";
import { type SearchPlan, searchLevelBound } from "../search/bounds.ts";
import type { LoadSearch } from "../search/machine.ts";
import type { Traces } from "../trace/index.ts";
import { drawPlan, ProbeJudge, probedFigures, validMinimumOf } from "./search.ts";

/** One level for the sweep loop to measure. */
export interface NextLevel {
  /** What it sends (a probed level: its cap of measured requests, no duration). */
  plan: LevelPlan;
  /** Its place in the progress events: 0-based, of `levelCount` (a search's: the most levels it can run). */
  levelIndex: number;
  levelCount: number;
  /** A searched level's judge, and its place in the order the search ran (`probe.order`); absent outside the search's decisions. */
  probe?: { judge: ProbeJudge; order: number };
}

/** The levels of one sweep, one at a time. */
export interface LevelSource {
  /** The next level to measure after `levels` (the sweep's so far, in the order run); null when there is none. */
  next(levels: readonly Level[]): NextLevel | null;
  /** The level `next` gave was measured and kept; `stop` is the sweep's, when the level calls for one. */
  measured(level: Level, stop: Stop | null): void;
  /** The sweep stopped during the level `next` gave (signal, deadline): it was not kept. */
  stopped(reason: string): void;
}

/** A ladder: its plan's levels in order, from `start` (a continued sweep's levels run before). */
export function ladderSource(plan: readonly LevelPlan[], start: number): LevelSource {
  let index = start;
  return {
    next: () => {
      const level = plan[index];
      return level ? { plan: level, levelIndex: index, levelCount: plan.length } : null;
    },
    measured: () => {
      index++;
    },
    stopped: () => {},
  };
}

/** A searched sweep's plan and state machine (docs/config.md#searched-levels). */
export interface SweepSearch {
  plan: SearchPlan;
  machine: LoadSearch;
}

/**
 * A search: one user alone first where it starts above 1 (an ordinary level, outside its decisions),
 * then the loads its state machine asks for, each probed level judged at its looks and drawing at most
 * what is left of the budget. A level that calls for a stop stops the search with it; one flagged for
 * its client stops it `client_limited`.
 */
export class SearchSource implements LevelSource {
  /** The most levels the search can run, the level of one user alone included: the progress events' count. */
  private readonly bound: number;
  /** The level of one user alone is still to run. */
  private single: boolean;
  /** The level `next` gave is that one. */
  private givenSingle = false;

  constructor(
    private readonly search: SweepSearch,
    private readonly workload: Workload,
    private readonly context: { requestSeconds: number; traces?: Traces },
    /** A continued sweep's levels, in the order run, and its stop. */
    levels: readonly Level[],
    stop: Stop | null,
  ) {
    // A continued search takes up the levels it ran before, in the order it ran them. (The level of
    // one user alone run before a search from above 1 is no probe: the search never read it.)
    for (const l of [...levels].sort((a, b) => (a.probe?.order ?? 0) - (b.probe?.order ?? 0)))
      if (l.probe) search.machine.record(probedFigures(l, workload.slo));
    if (stop) search.machine.impose({ reason: stop.reason, detail: stop.detail });
    this.single = singleStreamFirst(workload, search.plan, levels);
    this.bound = searchLevelBound(search.plan.bounds) + (this.single ? 1 : 0);
  }

  next(levels: readonly Level[]): NextLevel | null {
    const { machine, plan } = this.search;
    const { workload, context } = this;
    const order = levels.length + 1;
    this.givenSingle = this.single;
    if (this.single) return { plan: levelAt(workload, 1, order, context), levelIndex: 0, levelCount: this.bound };
    const load = machine.next();
    if (load === null) return null;
    const levelPlan = levelAt(workload, load, order, context);
    const judged = machine.judges(load);
    // The budget: a level draws at most what is left of it, and none is begun that could not reach its first look.
    // (The single-stream level run before the search, with no probe, is not the search's to spend.)
    const spent = levels.filter((l) => l.probe).reduce((sum, l) => sum + l.requests.sent + workload.warmupRequests, 0);
    const left = plan.budget - spent - workload.warmupRequests;
    const documented = documentLoad(levelPlan.load);
    const draw = (cap: number) =>
      drawPlan({ ...plan, cap }, concurrencyOf(documented), {
        validMinimum: validMinimumOf(documented),
        judged,
        ttftBound: machine.boundsTtft(load),
      });
    const needs = draw(plan.cap).minimum;
    if (left < needs) {
      machine.impose({
        reason: "budget",
        detail: `the search reached its budget of ${plan.budget} requests (warm-ups included; by default what the doubling ladder over ${plan.bounds.from}..${plan.bounds.to} sends): it had sent ${spent}, and the next level (${levelPlan.name}) needs ${needs + workload.warmupRequests} at least`,
      });
      return null;
    }
    const judge = new ProbeJudge(workload, plan.confidence, draw(Math.min(plan.cap, left)), judged);
    return {
      plan: { ...levelPlan, requests: judge.requests, levelDurationSeconds: null },
      levelIndex: order - 1,
      levelCount: this.bound,
      probe: { judge, order },
    };
  }

  measured(level: Level, stop: Stop | null): void {
    const { machine } = this.search;
    if (this.givenSingle) this.single = false;
    else machine.record(probedFigures(level, this.workload.slo));
    const client = this.givenSingle ? null : clientLimit(level);
    if (stop) machine.impose({ reason: stop.reason, detail: stop.detail });
    // What the client could not keep up with says nothing of the route: the search ends there.
    else if (client) machine.impose({ reason: "client_limited", detail: client });
  }

  stopped(reason: string): void {
    this.search.machine.impose({ reason: "stopped", detail: reason });
  }
}

/** Why a probed level's figures are the client's limit rather than the route's (its `client_*` invalid reasons); null when they are not. */
function clientLimit(level: Level): string | null {
  const reasons = level.invalid.filter((r) => r.code.startsWith("client_"));
  if (reasons.length === 0) return null;
  const words = level.invalidReasons.filter((w) => /client/i.test(w));
  return `the client could not keep up at ${loadPosition(level.load)}: ${words.join("; ") || reasons.map((r) => r.code).join(", ")}; the search ran no higher level, and its capacity is not found`;
}

/**
 * Whether a searched sweep runs a level of one user alone before its search: a search of a kind with
 * users (`userLevels`) from above 1 that has not run N = 1 yet (a continued sweep may have).
 */
function singleStreamFirst(workload: Workload, plan: SearchPlan, levels: readonly Level[]): boolean {
  const ofUsers = userLevels(workload) !== null;
  return ofUsers && plan.bounds.from > 1 && !levels.some((l) => concurrencyOf(l.load) === 1);
}
