/**
 * @module What a kind's level expansion produces and reads: a level as the sweep will run it (its
 * load, name, number and time) and the workload fields that time comes from. The plan and the sweep
 * read these; each kind (kinds/<kind>/) fills them in.
 */

/** The workload fields a level's time and requests come from (config's `Workload` has them all). */
export interface LevelBudget {
  /** Measured requests per level; absent when levels run for `levelDurationSeconds`. */
  requestsPerLevel?: number;
  /** Seconds each level sends for, instead of a request count. */
  levelDurationSeconds?: number;
  /** Unmeasured requests before each level. */
  warmupRequests: number;
  /** Per-request timeout, seconds. */
  requestTimeoutSeconds: number;
  /** Approximate prompt size in tokens. */
  promptTokens: number;
  /** max_tokens of each request. */
  maxTokens: number;
}

/** One level as the sweep will run it, expanded once from the workload for the sweep and the plan alike. */
export interface LevelPlanOf<L> {
  /** What the level sends. */
  load: L;
  /** The level in words: `concurrency 8`, or `rate 2 requests/s`. */
  name: string;
  /**
   * The level's number in its sweep, 1-based, whatever its load: its run document's `levels[].level`
   * and its samples' `level`. N, a rate or a speedup is its `load`'s.
   */
  level: number;
  /** Unmeasured requests sent before the level, at up to N at once (an open loop, a trace replay: one at a time). */
  warmupRequests: number;
  /** Measured requests; null when the level runs for `levelDurationSeconds` instead. */
  requests: number | null;
  /** Sends for this long instead of a request count, seconds; null with a request count. */
  levelDurationSeconds: number | null;
  /** The level can take no longer than this, every request running to its timeout, seconds. */
  upperBoundSeconds: number;
  /** The level's duration at the assumed per-stream rate and TTFT, seconds. */
  expectedSeconds: number;
}

/** A level's requests and time, without its load, name and number. */
export type LevelTiming = Omit<LevelPlanOf<unknown>, "load" | "name" | "level">;

/** Sequential rounds of `count` requests run by `workers` workers that each take one at a time. */
export const rounds = (count: number, workers: number) =>
  count <= 0 ? 0 : Math.ceil(count / Math.min(workers, count));

/**
 * A closed level's time: warm-up rounds, then either ceil(requests / N) rounds or the fixed duration
 * plus one more request (the requests in flight when the time is up run to their end). Each measured
 * request takes `pauseSeconds` more (a conversation's think time, shared over its turns).
 */
export function closedLevelTiming(
  concurrency: number,
  workload: LevelBudget,
  requestSeconds: number,
  pauseSeconds = 0,
): LevelTiming {
  const timeout = workload.requestTimeoutSeconds;
  const warmupRounds = rounds(workload.warmupRequests, concurrency);
  const duration = workload.levelDurationSeconds;
  const requests = duration === undefined ? (workload.requestsPerLevel ?? 0) : null;
  const measured = (oneRequest: number) =>
    duration === undefined ? rounds(requests ?? 0, concurrency) * oneRequest : duration + oneRequest;
  return {
    warmupRequests: workload.warmupRequests,
    requests,
    levelDurationSeconds: duration ?? null,
    upperBoundSeconds: warmupRounds * timeout + measured(timeout + pauseSeconds),
    expectedSeconds: warmupRounds * requestSeconds + measured(requestSeconds + pauseSeconds),
  };
}

/**
 * A level sent on a schedule (an open loop, a trace replay): its warm-up one request at a time, then
 * `sendingSeconds` of sends, then the last request's end.
 */
export function scheduledLevelTiming(
  sendingSeconds: number,
  requests: number | null,
  levelDurationSeconds: number | null,
  workload: LevelBudget,
  requestSeconds: number,
): LevelTiming {
  const warmup = workload.warmupRequests;
  return {
    warmupRequests: warmup,
    requests,
    levelDurationSeconds,
    upperBoundSeconds: (warmup + 1) * workload.requestTimeoutSeconds + sendingSeconds,
    expectedSeconds: (warmup + 1) * requestSeconds + sendingSeconds,
  };
}
