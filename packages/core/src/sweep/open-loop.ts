/**
 * @module An open-loop level's sends: at the times of a seeded Poisson schedule (exponential gaps at
 * the level's rate), never waiting on completions, at most `maxInFlight` at once; how late each send
 * left against its schedule, on the scheduler's monotonic clock; and the open-loop driver that runs them.
 */
import type { RawResult } from "../client/index.ts";
import type { LevelLoad } from "../plan/index.ts";
import { seededRandom } from "../random/index.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { DriveSpec, LevelDriver } from "./driver.ts";
import type { LevelCounters, LoopResult } from "./loop.ts";

/**
 * The gaps between sends at `ratePerSecond`, ms: exponential draws from a generator seeded by `seed`,
 * the level's number and the stream, so the same seed gives the same schedule and each level its own.
 * A level on T threads runs T streams (0 .. T-1) at rate / T each: merged, independent Poisson
 * streams are a Poisson stream at the summed rate.
 */
export function poissonGapsMs(ratePerSecond: number, seed: number, level: number, stream = 0): () => number {
  const random = seededRandom((seed * 1_000_003 + level * 7919 + stream * 104_729) >>> 0);
  return () => (-Math.log(1 - random()) / ratePerSecond) * 1000;
}

export interface OpenLoop {
  counters: LevelCounters;
  scheduler: Scheduler;
  /** Ends the schedule and the waits at once (a stop, the deadline, an early end). */
  signal: AbortSignal;
  gapsMs: () => number;
  /** Requests in flight at most: a send due past it waits for one to end. */
  maxInFlight: number;
  /** Sends stop at this offset from the first, ms (Infinity for a counted level). */
  durationMs: number;
  send(index: number): Promise<RawResult>;
  onResult(result: LoopResult): void;
}

export interface OpenLoopRecord {
  /** The scheduler's time of the first send. */
  firstSendMs: number;
  /** How late each send left against its schedule, ms, in send order. */
  lagsMs: number[];
  /** A send was due with `maxInFlight` requests in flight, and waited. */
  maxInFlightHit: boolean;
}

/** Sends on the schedule until the counters or the duration run out, then waits for the last to end. */
export async function runOpenLoop(loop: OpenLoop): Promise<OpenLoopRecord> {
  const { scheduler, signal } = loop;
  const firstSendMs = scheduler.now();
  const lagsMs: number[] = [];
  const pending = new Set<Promise<void>>();
  let maxInFlightHit = false;
  let failure: { error: unknown } | undefined;
  let freed: (() => void) | undefined;
  const slotFreed = () =>
    new Promise<void>((resolve) => {
      freed = resolve;
    });
  const onAbort = () => freed?.();
  signal.addEventListener("abort", onAbort, { once: true });
  for (let dueMs = firstSendMs; dueMs - firstSendMs < loop.durationMs; dueMs += loop.gapsMs()) {
    // Several sends may be due at once after a late wake-up: they leave back to back, each with its lag.
    // A timer may also fire a little early by the clock: a send never leaves before its time.
    while (dueMs > scheduler.now() && !signal.aborted) await scheduler.sleep(dueMs - scheduler.now(), signal);
    while (pending.size >= loop.maxInFlight && !signal.aborted) {
      maxInFlightHit = true;
      await slotFreed();
    }
    if (failure !== undefined || signal.aborted || loop.counters.exhausted()) break;
    const index = loop.counters.takeIndex();
    if (index === null) break;
    const seq = loop.counters.takeSeq();
    lagsMs.push(scheduler.now() - dueMs);
    const request: Promise<void> = loop
      .send(index)
      .then((raw) => loop.onResult({ index, seq, raw, endMs: scheduler.now() }))
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => {
        pending.delete(request);
        freed?.();
      });
    pending.add(request);
  }
  await Promise.all(pending);
  signal.removeEventListener("abort", onAbort);
  if (failure !== undefined) throw failure.error;
  return { firstSendMs, lagsMs, maxInFlightHit };
}

type OpenLoad = Extract<LevelLoad, { kind: "open" }>;
type OpenSpec = Extract<DriveSpec, { kind: "open" }>;

/** The open-loop driver: sends on a seeded Poisson schedule at the level's rate, never waiting on completions. */
export const openLoop: LevelDriver<OpenLoad, OpenSpec> = {
  // One request at a time: an open loop's level number is no count of users.
  warmupWorkers: (_load, warmupRequests) => Math.min(1, warmupRequests),

  prepare: (load, facts) => ({
    kind: "open",
    ratePerSecond: load.ratePerSecond,
    seed: load.seed,
    level: facts.level,
    stream: 0,
    maxInFlight: load.maxInFlight,
  }),

  async drive(spec, loop) {
    const endMs = loop.start();
    const open = await runOpenLoop({
      counters: loop.counters,
      scheduler: loop.scheduler,
      signal: loop.signal,
      gapsMs: poissonGapsMs(spec.ratePerSecond, spec.seed, spec.level, spec.stream),
      maxInFlight: spec.maxInFlight,
      durationMs: endMs - loop.scheduler.now(),
      send: loop.send,
      onResult: loop.onResult,
    });
    return { scheduleLagsMs: open.lagsMs, maxInFlightHit: open.maxInFlightHit };
  },

  // T independent Poisson streams at rate / T each are, merged, a Poisson stream at the rate.
  split: (spec, parts) =>
    Array.from({ length: parts }, (_, i) => ({
      ...spec,
      ratePerSecond: spec.ratePerSecond / parts,
      stream: spec.stream * parts + i,
      maxInFlight: Math.max(1, Math.floor(spec.maxInFlight / parts)),
    })),

  // No ramp: in flight is whatever the arrivals made of it, from the first send to the last.
  describe(spec, record, window) {
    const { firstSendMs, lastSendMs, sendTimes, inFlight } = window;
    const inFlightMean = inFlight.timeWeightedMean(firstSendMs, lastSendMs);
    return {
      achievedConcurrency: inFlightMean,
      openLoop: {
        ratePerSecond: spec.ratePerSecond,
        achievedRatePerSecond:
          sendTimes.length >= 2 && lastSendMs > firstSendMs
            ? (sendTimes.length - 1) / ((lastSendMs - firstSendMs) / 1000)
            : null,
        inFlightMean,
        inFlightMax: inFlight.maxInFlight,
        scheduleLagsMs: record.scheduleLagsMs,
        maxInFlight: spec.maxInFlight,
        maxInFlightHit: record.maxInFlightHit,
      },
    };
  },
};
