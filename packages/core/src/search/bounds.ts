/**
 * @module A searched workload's settings with their defaults (`searchPlan`), and the most it can cost:
 * the doubling ladder it brackets with (the saving's baseline) and the most levels it can run. The
 * sweep and `kneeboard plan` read these.
 */
import type { Workload } from "../config/index.ts";
import { DEFAULT_SEARCH_CAP_FACTOR, DEFAULT_SEARCH_CONFIDENCE, type LevelSearchSettings } from "../drive/search.ts";
import { LoadSearch, type ProbedFigures, type SearchBounds } from "./machine.ts";

/** A searched workload's settings with their defaults filled in, and its draw plan's batch and cap. */
export interface SearchPlan {
  axis: "concurrency" | "rate";
  bounds: SearchBounds;
  confidence: number;
  /** Measured requests per look (`requestsPerLevel`). */
  batch: number;
  /** Measured requests a probed level may draw at most. */
  cap: number;
  /** Requests the whole search may send, warm-ups included (`maxRequests`; default the doubling ladder's). */
  budget: number;
}

/** The plan of a searched workload (its `levelSearch`). */
export function searchPlan(
  workload: Workload,
  { axis, whole, settings }: { axis: "concurrency" | "rate"; whole: boolean; settings: LevelSearchSettings },
): SearchPlan {
  const batch = workload.requestsPerLevel ?? 64;
  const bounds = { from: settings.from, to: settings.to, resolution: settings.resolution, whole };
  return {
    axis,
    bounds,
    confidence: settings.confidence ?? DEFAULT_SEARCH_CONFIDENCE,
    batch,
    cap: Math.max(batch, settings.maxRequestsPerLevel ?? DEFAULT_SEARCH_CAP_FACTOR * batch),
    budget: settings.maxRequests ?? ladderRequests(bounds, batch, workload.warmupRequests),
  };
}

/** What the doubling ladder from..to sends at `batch` a level and its warm-ups: the budget's default and the saving's baseline. */
export function ladderRequests(bounds: SearchBounds, batch: number, warmupRequests: number): number {
  return doublingLadder(bounds).length * (batch + warmupRequests);
}

/**
 * The most levels a search can run: its own state machine (`LoadSearch`) run to its end against every
 * route of a family whose SLO and aggregate are monotone in load, as the search takes them: capacity at
 * each load of a grid over `from`..`to` (or below `from`), the first load above it missing or staying
 * undecided, and aggregate doubling with the load up to a knee at each load of the grid, flat above. The
 * worst of those paths is the bound; a search whose levels answer otherwise (a route that breaks the
 * monotony) is outside it.
 */
export function searchLevelBound(bounds: SearchBounds): number {
  const key = `${bounds.from},${bounds.to},${bounds.resolution},${bounds.whole}`;
  const known = LEVEL_BOUNDS.get(key);
  if (known !== undefined) return known;
  const most = worstPath(bounds);
  LEVEL_BOUNDS.set(key, most);
  return most;
}

/** Bounds by search range: a sweep and its plan ask for the same ones. */
const LEVEL_BOUNDS = new Map<string, number>();

function worstPath(bounds: SearchBounds): number {
  const grid = loadGrid(bounds);
  const capacities = [bounds.from / 2, ...grid];
  let most = 0;
  for (const capacity of capacities)
    for (const knee of grid)
      for (const above of ["misses", "undecided"] as const)
        most = Math.max(
          most,
          machineLevels(bounds, (load) => route(load, capacity, knee, above)),
        );
  return most;
}

/** The least one probed level draws, warm-up included, by what it must show at `load`. */
export interface LevelCosts {
  /** A `meets`: on per-stream speed alone at its first look, or (`boundsTtft`) with TTFT p95 bounded too. */
  meets(load: number, boundsTtft: boolean): number;
  misses(load: number): number;
  /** A load above a miss, run for the knee's aggregate only. */
  notJudged(load: number): number;
}

/**
 * For each capacity of a grid over `from`..`to`, the least a search under a TTFT limit spends before
 * its capacity's probe has bounded TTFT p95: its state machine (`LoadSearch`, with the TTFT limit) run
 * against routes of that capacity (meets up to it, misses above, the SLO and aggregate monotone in
 * load), each level at the least it draws (`costs`), the knee where that is cheapest. `spend`
 * includes the capacity's probe that bounds TTFT (the largest probed load that meets: a bisection's
 * load, or `to`); `withoutBound` is the same path with that probe deciding on speed alone. A capacity
 * whose probe the machine never bounds TTFT at (a doubling step that met on speed alone, the loads
 * above it missing) is left out: no budget pays for it.
 */
export function ttftBoundSpends(
  bounds: SearchBounds,
  costs: LevelCosts,
): { capacity: number; spend: number; withoutBound: number }[] {
  const grid = loadGrid(bounds);
  const out: { capacity: number; spend: number; withoutBound: number }[] = [];
  for (const capacity of grid) {
    let least: { spend: number; withoutBound: number } | null = null;
    // The knee only decides where the doubling stops (the capacity's probe comes before the knee's
    // bisection): a knee at each doubling step covers every stop, the lowest the cheapest.
    for (const knee of doublingLadder(bounds)) {
      const path = spendUntilTtftBound(bounds, capacity, knee, costs);
      if (path && (!least || path.spend < least.spend)) least = path;
    }
    if (least) out.push({ capacity, ...least });
  }
  return out;
}

/**
 * What the state machine spends against one monotone route until its capacity's probe (the largest
 * probed load that meets: the search's answer) has bounded TTFT; null when that probe never does.
 */
function spendUntilTtftBound(
  bounds: SearchBounds,
  capacity: number,
  knee: number,
  costs: LevelCosts,
): { spend: number; withoutBound: number } | null {
  const search = new LoadSearch(bounds, true);
  const probes: { load: number; before: number; after: number; bounded: boolean }[] = [];
  let spent = 0;
  for (let load = search.next(), levels = 0; load !== null && levels < 1000; load = search.next(), levels++) {
    const judged = search.judges(load);
    const meets = judged && load <= capacity;
    const bounded = meets && search.boundsTtft(load);
    const before = spent;
    spent += !judged ? costs.notJudged(load) : meets ? costs.meets(load, bounded) : costs.misses(load);
    if (meets) probes.push({ load, before, after: spent, bounded });
    search.record({
      load,
      decision: !judged ? "not_judged" : meets ? "meets" : "misses",
      valid: true,
      aggregate: Math.min(load, knee),
      ttftP50Ms: 1,
      ttftMet: bounded,
    });
  }
  const probe = probes.reduce<(typeof probes)[number] | null>((a, b) => (a && a.load > b.load ? a : b), null);
  if (!probe?.bounded) return null;
  return { spend: probe.after, withoutBound: probe.before + costs.meets(probe.load, false) };
}

/** What a monotone route answers at `load`: meets up to `capacity`, `above` just past it, misses beyond; aggregate rising to `knee`, flat above. */
function route(
  load: number,
  capacity: number,
  knee: number,
  above: "misses" | "undecided",
): Omit<ProbedFigures, "decision"> & { decision: "meets" | "misses" | "undecided" } {
  return {
    load,
    decision: load <= capacity ? "meets" : above === "undecided" && load <= capacity * 2 ? "undecided" : "misses",
    valid: true,
    aggregate: Math.min(load, knee),
    ttftP50Ms: 1,
    ttftMet: true,
  };
}

/** The levels the state machine runs against `answer`. */
function machineLevels(bounds: SearchBounds, answer: (load: number) => ProbedFigures): number {
  const search = new LoadSearch(bounds);
  let levels = 0;
  for (let load = search.next(); load !== null && levels < 1000; load = search.next(), levels++) {
    const figures = answer(load);
    search.record(search.judges(load) ? figures : { ...figures, decision: "not_judged" });
  }
  return levels;
}

/** Loads over from..to: every user up to 96 of them, else about 96 points evenly spread in log scale (rates likewise). */
function loadGrid(bounds: SearchBounds): number[] {
  const points = 96;
  if (bounds.whole && bounds.to - bounds.from < points)
    return Array.from({ length: bounds.to - bounds.from + 1 }, (_, i) => bounds.from + i);
  const ratio = (bounds.to / bounds.from) ** (1 / (points - 1));
  const out = Array.from({ length: points }, (_, i) => bounds.from * ratio ** i);
  return bounds.whole ? [...new Set(out.map((x) => Math.round(x)))] : out;
}

/** Levels of the doubling ladder from..to (the last at `to`): the saving's baseline. */
export function doublingLadder(bounds: SearchBounds): number[] {
  const out: number[] = [];
  for (let x = bounds.from; x < bounds.to; x *= 2) out.push(bounds.whole ? Math.round(x) : x);
  out.push(bounds.to);
  return out;
}
