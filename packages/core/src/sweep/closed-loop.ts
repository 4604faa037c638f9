/**
 * @module The closed-loop driver: N workers, each sends its next request when its last one ended
 * (after the wait a 429 owes); their first sends spread evenly over one expected request duration.
 * With a conversation, each worker is one user holding conversations turn by turn (./conversation.ts).
 */
import type { LevelLoad } from "../plan/index.ts";
import { conversations } from "./conversation.ts";
import type { DriveSpec, LevelDriver } from "./driver.ts";
import { newDebts, runWorkers, type WorkerDebt } from "./loop.ts";

type ClosedLoad = Extract<LevelLoad, { kind: "closed" }>;
type ClosedSpec = Extract<DriveSpec, { kind: "closed" }>;

export const closedLoop: LevelDriver<ClosedLoad, ClosedSpec> = {
  warmupWorkers: (load, warmupRequests) => Math.min(load.concurrency, warmupRequests),

  // No lock-step: the first N sends leave evenly over one expected request duration, so
  // completions, and the sends after them, spread out as independent users' would.
  prepare: (load, facts) => ({
    kind: "closed",
    concurrency: load.concurrency,
    startSpreadMs: load.concurrency < 2 ? 0 : facts.expectedRequestMs,
    firstWorker: 0,
    workers: load.concurrency,
    ...(load.conversation
      ? { conversation: { turns: load.conversation.turns, thinkMs: load.conversation.thinkSeconds * 1000 } }
      : {}),
  }),

  async drive(spec, loop) {
    const endMs = loop.start();
    await runWorkers({
      debts: Array.from(
        { length: spec.workers },
        (_, w) => loop.debts?.[spec.firstWorker + w] ?? (newDebts(1)[0] as WorkerDebt),
      ),
      counters: loop.counters,
      scheduler: loop.scheduler,
      signal: loop.signal,
      endMs: () => endMs,
      send: loop.send,
      onResult: loop.onResult,
      onWait: loop.onWait,
      firstSendDelayMs: (worker) => (spec.startSpreadMs * (spec.firstWorker + worker)) / spec.concurrency,
      ...(spec.conversation ? { session: conversations(spec.conversation) } : {}),
    });
    return { scheduleLagsMs: [], maxInFlightHit: false };
  },

  // Each part a run of consecutive workers, the first parts one more when N does not divide.
  split(spec, parts) {
    let first = spec.firstWorker;
    return Array.from({ length: parts }, (_, i) => {
      const workers = Math.floor(spec.workers / parts) + (i < spec.workers % parts ? 1 : 0);
      const part = { ...spec, firstWorker: first, workers };
      first += workers;
      return part;
    });
  },

  // Achieved concurrency is judged from the ramp's end up to the last send: the loop holds N until
  // then by design, and the drain after it belongs to the method, not to a client falling behind. A
  // level whose requests all left in the ramp has no refill to judge: its most in flight stands for it.
  describe: (spec, _record, window) => ({
    startSpreadMs: spec.startSpreadMs,
    achievedConcurrency: window.measured
      ? window.inFlight.timeWeightedMean(window.rampEndMs, window.lastSendMs)
      : window.inFlight.maxInFlight,
  }),
};
