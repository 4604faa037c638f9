/**
 * @module Sends on a schedule, never waiting on completions, at most `maxInFlight` at once: how an
 * open loop and a trace replay send (each kind gives its gaps); how late each send left against its
 * schedule, on the scheduler's monotonic clock; and what the summary records of such a level.
 */
import { z } from "zod";
import type { RawResult } from "../client/index.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { DriveRecord, LevelWindow, LoadFigures } from "./driver.ts";
import type { LevelCounters, LoopResult } from "./loop.ts";

/**
 * The level figures of a load sent on a schedule (an open loop's, a trace replay's): its run document
 * level holds them under its kind's name (`level.open`, `level.trace`), defined once here for both.
 */
export const ScheduleFigures = z.object({
  /** Sends over the time from the first send to the last, requests/s; null with fewer than 2 sends. */
  achievedRatePerSecond: z.number().nonnegative().nullable(),
  /** Time-weighted mean of the requests in flight from the first send to the last; null when not measured. */
  inFlightMean: z.number().nonnegative().nullable(),
  /** The most requests in flight at once; null when not measured. */
  inFlightMax: z.number().int().nonnegative().nullable(),
  /** How late sends left against their schedule, ms (p50, p99); null when not measured. */
  scheduleLagMs: z.object({ p50: z.number().nullable(), p99: z.number().nullable() }).nullable(),
});
export type ScheduleFigures = z.infer<typeof ScheduleFigures>;

export interface ScheduleLoop {
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

export interface ScheduleRecord {
  /** The scheduler's time of the first send. */
  firstSendMs: number;
  /** How late each send left against its schedule, ms, in send order. */
  lagsMs: number[];
  /** A send was due with `maxInFlight` requests in flight, and waited. */
  maxInFlightHit: boolean;
}

/** Sends on the schedule until the counters or the duration run out, then waits for the last to end. */
export async function runSchedule(loop: ScheduleLoop): Promise<ScheduleRecord> {
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
    schedule: {
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
