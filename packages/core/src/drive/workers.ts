/**
 * @module The driver of N workers, each sending its next request when its last one ended (after the
 * wait a 429 owes), their first sends spread evenly over one expected request duration: a closed
 * loop's, and a conversation's, whose workers each hold a session.
 */
import { z } from "zod";
import type { LevelDriver } from "./driver.ts";
import type { HeadlineParts, SummaryUnits, SweepLayers, TopLevelFigures } from "./kind.ts";
import { newDebts, runWorkers, type WorkerDebt } from "./loop.ts";
import { type LevelSearch, ladderOf, searchOf } from "./search.ts";
import type { WorkerSession } from "./session.ts";
import { number } from "./words.ts";

/**
 * The level figures of N workers (a closed loop's, a conversation's): their run document level holds
 * them under its kind's name (`level.closed`, `level.conversation`), defined once here for both.
 */
export const WorkersFigures = z.object({
  /**
   * The first N sends left evenly over this many ms (one expected request duration: the previous
   * level's e2e p50, or the warm-up's), worker k at k x startSpreadMs / N; 0 when nothing told the
   * duration (or N = 1); null in documents stored before it was recorded.
   */
  startSpreadMs: z.number().nonnegative().nullable(),
});
export type WorkersFigures = z.infer<typeof WorkersFigures>;

/** N workers' sends, serializable: the level's N, its start spread and the run of workers a thread runs. */
export interface WorkersSpec<K extends string> {
  kind: K;
  /** N of the level (the start spread is over N workers, whatever share this spec runs). */
  concurrency: number;
  /** The first sends of the level's N workers leave evenly over this long, ms. */
  startSpreadMs: number;
  /** The workers this spec runs: `firstWorker` .. `firstWorker + workers - 1` of the level's N. */
  firstWorker: number;
  workers: number;
}

/**
 * The driver of a load of N workers: `extra` adds a kind's own fields to the spec, `session` gives
 * each worker's state across its sends (none: every request stands alone).
 */
export function workersDriver<L extends { kind: K; concurrency: number }, K extends string, X extends object>(
  kind: K,
  extra: (load: L) => X,
  session?: (spec: WorkersSpec<K> & X) => WorkerSession,
): LevelDriver<L, WorkersSpec<K> & X> {
  return {
    warmupWorkers: (load, warmupRequests) => Math.min(load.concurrency, warmupRequests),

    // No lock-step: the first N sends leave evenly over one expected request duration, so
    // completions, and the sends after them, spread out as independent users' would.
    prepare: (load, facts) => ({
      kind,
      concurrency: load.concurrency,
      startSpreadMs: load.concurrency < 2 ? 0 : facts.expectedRequestMs,
      firstWorker: 0,
      workers: load.concurrency,
      ...extra(load),
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
        ...(session ? { session: session(spec) } : {}),
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
    // The ramp ends at the N-th send or the last user's start, whichever is later: users that started
    // early at a lighter load may send their second request before the last one starts (a level that
    // sends 2N would otherwise read the start spread as a client falling behind).
    describe: (spec, _record, window) => {
      const lastStartMs = window.firstSendMs + (spec.startSpreadMs * (spec.concurrency - 1)) / spec.concurrency;
      const fromMs = Math.max(window.rampEndMs, lastStartMs);
      return {
        startSpreadMs: spec.startSpreadMs,
        achievedConcurrency:
          window.measured && fromMs < window.lastSendMs
            ? window.inFlight.timeWeightedMean(fromMs, window.lastSendMs)
            : window.inFlight.maxInFlight,
      };
    },
  };
}

/**
 * What every kind of N workers says the same way (a closed loop's, a conversation's): N is its users,
 * its place on the concurrency axis, its chunk rate and its thread bound; its knee and capacity are
 * in users; its headline is single-stream and N.
 */
export const USERS = {
  position: (load: { concurrency: number }) => load.concurrency,
  users: (load: { concurrency: number }) => load.concurrency,
  userLevels: (workload: { concurrency: number[] | LevelSearch }) => ladderOf(workload.concurrency),
  search: (workload: { concurrency: number[] | LevelSearch }) => searchOf(workload.concurrency),
  pinned: (_workload: unknown, position: number) => ({ concurrency: [position] }),
  searchedIn: (layers: SweepLayers) => layers.concurrency?.search === true,
  chunksPerSecond: (load: { concurrency: number }, perStream: number, _maxTokens: number, chunksPerToken: number) =>
    load.concurrency * perStream * chunksPerToken,
  threadBound: (load: { concurrency: number }) => load.concurrency,
  summary: { knee: "kneeConcurrency", capacity: "capacity" } satisfies SummaryUnits as SummaryUnits,
  offeredRate: () => null,
  headline: (p: HeadlineParts) =>
    `single-stream ${p.singleStream} tok/s, peak ${p.peak}, knee ${p.kneeUsers}, scaling efficiency ${p.scalingEfficiency}`,
  reportLines: () => [],
} as const;

/** What `kneeboard plan` says the same way of every kind of N workers: its levels are N, its top level N streams. */
export const USERS_PLAN = {
  column: "level",
  label: (load: { concurrency: number }) => String(load.concurrency),
  arrival: () => "",
  topLevel: (load: { concurrency: number }, f: TopLevelFigures) =>
    `${load.concurrency} streams x ${number(f.chunksPerSecond / load.concurrency)} chunks/s = ${f.chunks}`,
  before: () => [],
} as const;
