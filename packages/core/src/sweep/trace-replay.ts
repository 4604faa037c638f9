/**
 * @module The trace-replay driver: a recorded window's requests, each sent at its timestamp divided by
 * the level's speedup on the open loop's sender (./open-loop.ts), never waiting on others, at most
 * `maxInFlight` at once. Request k of the level is the window's k-th, so it runs on one thread.
 */
import type { LevelLoad } from "../plan/index.ts";
import type { DriveSpec, LevelDriver } from "./driver.ts";
import { runOpenLoop, scheduleFigures } from "./open-loop.ts";

type TraceLoad = Extract<LevelLoad, { kind: "trace" }>;
type TraceSpec = Extract<DriveSpec, { kind: "trace" }>;

/** The gaps between the offsets, in order: the schedule as the open loop's sender reads it. */
function offsetGapsMs(offsetsMs: number[]): () => number {
  let i = 0;
  return () => {
    i++;
    // Past the last request, no send is ever due.
    return (offsetsMs[i] ?? Number.POSITIVE_INFINITY) - (offsetsMs[i - 1] ?? 0);
  };
}

export const traceReplay: LevelDriver<TraceLoad, TraceSpec> = {
  // One request at a time, as an open loop's warm-up: its prompt is no part of the trace.
  warmupWorkers: (_load, warmupRequests) => Math.min(1, warmupRequests),

  prepare: (load) => {
    const offsetsMs = load.trace.offsetsMs.map((ms) => ms / load.speedup);
    const spanMs = offsetsMs.at(-1) ?? 0;
    return {
      kind: "trace",
      offsetsMs,
      ratePerSecond: spanMs > 0 ? (offsetsMs.length - 1) / (spanMs / 1000) : 0,
      maxInFlight: load.maxInFlight,
    };
  },

  async drive(spec, loop) {
    const endMs = loop.start();
    const open = await runOpenLoop({
      counters: loop.counters,
      scheduler: loop.scheduler,
      signal: loop.signal,
      gapsMs: offsetGapsMs(spec.offsetsMs),
      maxInFlight: spec.maxInFlight,
      durationMs: endMs - loop.scheduler.now(),
      send: loop.send,
      onResult: loop.onResult,
    });
    return { scheduleLagsMs: open.lagsMs, maxInFlightHit: open.maxInFlightHit };
  },

  split: (spec, parts) => {
    // loadThreadBound keeps a replay on one thread: the window's k-th request is the level's k-th send.
    if (parts !== 1) throw new Error("a trace replay runs on one thread");
    return [spec];
  },

  describe: (spec, record, window) => scheduleFigures(spec.ratePerSecond, spec.maxInFlight, record, window),
};
