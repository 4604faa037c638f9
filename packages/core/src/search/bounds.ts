/**
 * @module A searched workload's settings with their defaults (`searchPlan`), and the most it can cost:
 * the doubling ladder it brackets with (the saving's baseline) and the most levels it can run. The
 * sweep and `kneeboard plan` read these.
 */
import type { Workload } from "../config/index.ts";
import { DEFAULT_SEARCH_CAP_FACTOR, DEFAULT_SEARCH_CONFIDENCE, type LevelSearchSettings } from "../drive/search.ts";
import type { SearchBounds } from "./machine.ts";

/** A searched workload's settings with their defaults filled in, and its draw plan's batch and cap. */
export interface SearchPlan {
  axis: "concurrency" | "rate";
  bounds: SearchBounds;
  confidence: number;
  /** Measured requests per look (`requestsPerLevel`). */
  batch: number;
  /** Measured requests a probed level may draw at most. */
  cap: number;
}

/** The plan of a searched workload (its `levelSearch`). */
export function searchPlan(
  workload: Workload,
  { axis, whole, settings }: { axis: "concurrency" | "rate"; whole: boolean; settings: LevelSearchSettings },
): SearchPlan {
  const batch = workload.requestsPerLevel ?? 64;
  return {
    axis,
    bounds: { from: settings.from, to: settings.to, resolution: settings.resolution, whole },
    confidence: settings.confidence ?? DEFAULT_SEARCH_CONFIDENCE,
    batch,
    cap: Math.max(batch, settings.maxRequestsPerLevel ?? DEFAULT_SEARCH_CAP_FACTOR * batch),
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
