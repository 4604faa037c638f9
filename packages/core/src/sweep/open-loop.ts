/**
 * @module An open-loop level's sends: at the times of a seeded schedule (Poisson: exponential gaps;
 * gamma: gaps of shape `burstiness`; both of mean 1 / rate), never waiting on completions, at most
 * `maxInFlight` at once; how late each send left against its schedule, on the scheduler's monotonic
 * clock; and the open-loop driver that runs them. A trace replay (./trace-replay.ts) sends on the same loop.
 */
import type { RawResult } from "../client/index.ts";
import type { LevelLoad, OpenArrival } from "../plan/index.ts";
import { normal, seededRandom } from "../random/index.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { DriveRecord, DriveSpec, LevelDriver, LevelWindow, LoadFigures } from "./driver.ts";
import type { LevelCounters, LoopResult } from "./loop.ts";

/**
 * The gaps between sends at `ratePerSecond`, ms: exponential draws from a generator seeded by `seed`,
 * the level's number and the stream, so the same seed gives the same schedule and each level its own.
 * A level on T threads runs T streams (0 .. T-1) at rate / T each: merged, independent Poisson
 * streams are a Poisson stream at the summed rate.
 */
export function poissonGapsMs(ratePerSecond: number, seed: number, level: number, stream = 0): () => number {
  return arrivalGapsMs({ arrival: "poisson" }, ratePerSecond, seed, level, stream);
}

/**
 * A gamma draw of shape `shape` and scale 1 (mean `shape`), by Marsaglia and Tsang's method; a shape
 * under 1 is drawn at shape + 1 and scaled by U^(1/shape).
 */
export function gammaDraw(shape: number, random: () => number): number {
  if (shape < 1) return gammaDraw(shape + 1, random) * (1 - random()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/**
 * The gaps between sends at `ratePerSecond`, ms, from a generator seeded by `seed`, the level's number
 * and the stream (the same seed gives the same schedule, each level its own): exponential draws for
 * `poisson`; for `gamma`, gamma draws of shape `burstiness` and mean 1 / rate (a gap's coefficient of
 * variation is 1 / sqrt(burstiness)), never rescaled to hit the rate exactly.
 */
export function arrivalGapsMs(
  spacing: OpenArrival,
  ratePerSecond: number,
  seed: number,
  level: number,
  stream = 0,
): () => number {
  const random = seededRandom((seed * 1_000_003 + level * 7919 + stream * 104_729) >>> 0);
  if (spacing.arrival === "poisson") return () => (-Math.log(1 - random()) / ratePerSecond) * 1000;
  const { burstiness } = spacing;
  return () => (gammaDraw(burstiness, random) / (burstiness * ratePerSecond)) * 1000;
}

/**
 * Every `every`-th gap of `gapsMs` from the `at`-th on, summed: the share of one schedule a thread
 * sends when T threads deal its arrivals round (thread `at` sends arrivals at, at + T, ...). The first
 * call gives the thread's first send's offset from the schedule's start.
 */
export function dealtGapsMs(gapsMs: () => number, every: number, at: number): () => number {
  let first = true;
  return () => {
    let sum = 0;
    for (let i = first ? at : every; i > 0; i--) sum += gapsMs();
    first = false;
    return sum;
  };
}

export interface OpenLoop {
  counters: LevelCounters;
  scheduler: Scheduler;
  /** Ends the schedule and the waits at once (a stop, the deadline, an early end). */
  signal: AbortSignal;
  gapsMs: () => number;
  /** The first send is due this long after the loop starts, ms (default 0). */
  firstDueMs?: number;
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
  const startMs = firstSendMs;
  for (let dueMs = startMs + (loop.firstDueMs ?? 0); dueMs - startMs < loop.durationMs; dueMs += loop.gapsMs()) {
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
    const scheduledMs = dueMs - startMs;
    const request: Promise<void> = loop
      .send(index)
      .then((raw) => loop.onResult({ index, seq, raw, endMs: scheduler.now(), scheduledMs }))
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

/** The open-loop driver: sends on a seeded schedule (Poisson or gamma) at the level's rate, never waiting on completions. */
export const openLoop: LevelDriver<OpenLoad, OpenSpec> = {
  // One request at a time: an open loop's level number is no count of users.
  warmupWorkers: (_load, warmupRequests) => Math.min(1, warmupRequests),

  prepare: (load, facts) => ({
    kind: "open",
    spacing: load.arrival === "gamma" ? { arrival: "gamma", burstiness: load.burstiness } : { arrival: "poisson" },
    ratePerSecond: load.ratePerSecond,
    seed: load.seed,
    level: facts.level,
    stream: 0,
    deal: null,
    maxInFlight: load.maxInFlight,
  }),

  async drive(spec, loop) {
    const endMs = loop.start();
    const gaps = arrivalGapsMs(spec.spacing, spec.ratePerSecond, spec.seed, spec.level, spec.stream);
    // A dealt share of one schedule: its first send is due at its first arrival.
    const dealt = spec.deal ? dealtGapsMs(gaps, spec.deal.every, spec.deal.at) : null;
    const open = await runOpenLoop({
      counters: loop.counters,
      scheduler: loop.scheduler,
      signal: loop.signal,
      gapsMs: dealt ?? gaps,
      firstDueMs: dealt ? dealt() : 0,
      maxInFlight: spec.maxInFlight,
      durationMs: endMs - loop.scheduler.now(),
      send: loop.send,
      onResult: loop.onResult,
    });
    return { scheduleLagsMs: open.lagsMs, maxInFlightHit: open.maxInFlightHit };
  },

  // T independent Poisson streams at rate / T each are, merged, a Poisson stream at the rate. Merged
  // gamma streams are not a gamma stream: the T threads deal one schedule's arrivals round instead.
  split: (spec, parts) =>
    Array.from({ length: parts }, (_, i) => ({
      ...spec,
      maxInFlight: Math.max(1, Math.floor(spec.maxInFlight / parts)),
      ...(spec.spacing.arrival === "poisson"
        ? { ratePerSecond: spec.ratePerSecond / parts, stream: spec.stream * parts + i }
        : { deal: { every: (spec.deal?.every ?? 1) * parts, at: (spec.deal?.at ?? 0) + (spec.deal?.every ?? 1) * i } }),
    })),

  describe: (spec, record, window) => scheduleFigures(spec.ratePerSecond, spec.maxInFlight, record, window),
};

/**
 * What the summary records of a level sent on a schedule (an open loop, a trace replay) at
 * `ratePerSecond`: no ramp, in flight is whatever the arrivals made of it from the first send to the
 * last; the achieved rate; and the schedule's lags.
 */
export function scheduleFigures(
  ratePerSecond: number,
  maxInFlight: number,
  record: DriveRecord,
  window: LevelWindow,
): LoadFigures {
  const { firstSendMs, lastSendMs, sendTimes, inFlight } = window;
  const inFlightMean = inFlight.timeWeightedMean(firstSendMs, lastSendMs);
  return {
    achievedConcurrency: inFlightMean,
    openLoop: {
      ratePerSecond,
      achievedRatePerSecond:
        sendTimes.length >= 2 && lastSendMs > firstSendMs
          ? (sendTimes.length - 1) / ((lastSendMs - firstSendMs) / 1000)
          : null,
      inFlightMean,
      inFlightMax: inFlight.maxInFlight,
      scheduleLagsMs: record.scheduleLagsMs,
      maxInFlight,
      maxInFlightHit: record.maxInFlightHit,
    },
  };
}
