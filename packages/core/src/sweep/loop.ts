/**
 * @module The worker loop of a level, one for the main thread and worker threads alike: take an
 * index, send, hand the result on, serve the wait a 429 left before taking the next; and the 429
 * wait rule. Kept apart from the sweep so a thread loads it without the sweep (no import cycle).
 */
import type { RawResult } from "../client/index.ts";
import type { Scheduler } from "../scheduler/index.ts";

/** A worker's first wait after a 429 without `retry-after`, ms; it doubles per consecutive 429 of that worker. */
export const RATE_LIMIT_FIRST_WAIT_MS = 1000;
/** The longest wait after a 429, ms, whatever `retry-after` says: a level must not stall for an hour. */
export const RATE_LIMIT_MAX_WAIT_MS = 30_000;

/**
 * How long a worker waits before its next send after its `consecutive`-th 429 in a row (1-based), ms:
 * `retry-after` when the response had one, else 1 s doubling per consecutive 429; at most 30 s.
 */
export function rateLimitWaitMs(retryAfterSeconds: number | null, consecutive: number): number {
  const ms =
    retryAfterSeconds !== null && retryAfterSeconds >= 0
      ? retryAfterSeconds * 1000
      : RATE_LIMIT_FIRST_WAIT_MS * 2 ** Math.max(0, consecutive - 1);
  return Math.min(ms, RATE_LIMIT_MAX_WAIT_MS);
}

/** One worker's 429s in a row and the wait it owes before its next send, ms. */
export interface WorkerDebt {
  streak: number;
  owedMs: number;
}

export function newDebts(workers: number): WorkerDebt[] {
  return Array.from({ length: Math.max(0, workers) }, () => ({ streak: 0, owedMs: 0 }));
}

/** Where a level's workers take their request indexes and send order: the level runner, or counters threads share. */
export interface LevelCounters {
  /** The next request index; null when none is left or the level must send nothing more. */
  takeIndex(): number | null;
  /** The next place in the level's send order, warm-up included (the early-end rule counts the first sends). */
  takeSeq(): number;
  /** True when no index is left or the level has ended: a worker then leaves without serving its wait. */
  exhausted(): boolean;
}

/** One request's result as a worker hands it on; times on the scheduler's clock. */
export interface LoopResult {
  index: number;
  seq: number;
  raw: RawResult;
  endMs: number;
  /** An open loop's or trace replay's: when the send was due, ms from the loop's start (absent for a closed loop). */
  scheduledMs?: number;
}

export interface WorkerLoop {
  /** One per worker: the loop runs `debts.length` workers, never more requests at once. */
  debts: WorkerDebt[];
  counters: LevelCounters;
  scheduler: Scheduler;
  /** Ends a wait at once (a stop, the deadline, an early end). */
  signal: AbortSignal;
  /** The end of a timed level on the scheduler's clock (Infinity for a counted one): no send after it. */
  endMs(): number;
  send(index: number): Promise<RawResult>;
  /** Each result as it comes; false stops this worker. */
  onResult(result: LoopResult): boolean;
  /** A wait served after a 429, from and to on the scheduler's clock. */
  onWait(fromMs: number, toMs: number): void;
  /** How long worker `i` (0-based) waits before its first send, ms (default none): the closed loop's start spread. */
  firstSendDelayMs?: (worker: number) => number;
}

/**
 * Runs the loop's workers until the counters are exhausted. A worker that got a 429 serves its wait
 * (`rateLimitWaitMs`) before it takes its next index, so the others take what is left meanwhile; it
 * skips the wait when nothing is left. The first error thrown stops every worker and is rethrown.
 */
export async function runWorkers(loop: WorkerLoop): Promise<void> {
  const { counters, scheduler, signal } = loop;
  let failure: { error: unknown } | undefined;
  const worker = async (debt: WorkerDebt, i: number) => {
    const delayMs = loop.firstSendDelayMs?.(i) ?? 0;
    if (delayMs > 0) await scheduler.sleep(delayMs, signal);
    while (failure === undefined && !counters.exhausted()) {
      try {
        if (debt.owedMs > 0) {
          const fromMs = scheduler.now();
          await scheduler.sleep(debt.owedMs, signal);
          debt.owedMs = 0;
          loop.onWait(fromMs, scheduler.now());
        }
        if (signal.aborted || scheduler.now() >= loop.endMs()) return;
        const index = counters.takeIndex();
        if (index === null) return;
        const seq = counters.takeSeq();
        const raw = await loop.send(index);
        const endMs = scheduler.now();
        if (raw.outcome === "rate_limited") {
          debt.streak++;
          debt.owedMs = rateLimitWaitMs(raw.retryAfterSeconds, debt.streak);
        } else debt.streak = 0;
        if (!loop.onResult({ index, seq, raw, endMs })) return;
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(loop.debts.map(worker));
  if (failure !== undefined) throw failure.error;
}
