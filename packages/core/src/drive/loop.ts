/**
 * @module The worker loop of a level, one for the main thread and worker threads alike: take an
 * index, send, hand the result on, serve the wait a 429 left before taking the next; and the 429
 * wait rule. Below the sweep and the kinds: each kind's driver runs its sends on it.
 */
import type { RawResult } from "../client/index.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { Turn, WorkerSession } from "./session.ts";

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
  /**
   * Once exhausted: whether more indexes will come (a searched level's count may still grow with the
   * results in flight); a worker waits for the answer instead of leaving. Absent: none will.
   */
  more?(): Promise<boolean>;
}

/** One request's result as a worker hands it on; times on the scheduler's clock. */
export interface LoopResult {
  index: number;
  seq: number;
  raw: RawResult;
  endMs: number;
  /** An open loop's or trace replay's: when the send was due, ms from the loop's start (absent for a closed loop). */
  scheduledMs?: number;
  /** A conversation's turn, 1-based; absent outside conversations. */
  turn?: number;
}

/** Why a worker waited before its next send: a 429's wait, or a reader's think time in a conversation. */
export type WaitKind = "rate_limit" | "think";

export interface WorkerLoop {
  /** One per worker: the loop runs `debts.length` workers, never more requests at once. */
  debts: WorkerDebt[];
  counters: LevelCounters;
  scheduler: Scheduler;
  /** Ends a wait at once (a stop, the deadline, an early end). */
  signal: AbortSignal;
  /** The end of a timed level on the scheduler's clock (Infinity for a counted one): no send after it. */
  endMs(): number;
  /** Sends request `index`; in a conversation, as `turn`. */
  send(index: number, turn?: Turn): Promise<RawResult>;
  /** Each result as it comes; false stops this worker. */
  onResult(result: LoopResult): boolean;
  /** A wait served (after a 429, or a reader's think time), from and to on the scheduler's clock. */
  onWait(fromMs: number, toMs: number, kind: WaitKind): void;
  /** How long worker `i` (0-based) waits before its first send, ms (default none): the closed loop's start spread. */
  firstSendDelayMs?: (worker: number) => number;
  /** Each worker's own state across its sends (a closed loop's conversations); none: every send stands alone. */
  session?: WorkerSession;
}

/**
 * Runs the loop's workers until the counters are exhausted. A worker that got a 429 serves its wait
 * (`rateLimitWaitMs`) before it takes its next index, so the others take what is left meanwhile; a
 * worker in a conversation serves its think time the same way. It skips a wait when nothing is left.
 * The first error thrown stops every worker and is rethrown.
 */
export async function runWorkers(loop: WorkerLoop): Promise<void> {
  const { counters, scheduler, signal, session } = loop;
  let failure: { error: unknown } | undefined;
  const worker = async (debt: WorkerDebt, i: number) => {
    const delayMs = loop.firstSendDelayMs?.(i) ?? 0;
    if (delayMs > 0) await scheduler.sleep(delayMs, signal);
    let thinkMs = 0;
    const more = () => counters.more?.() ?? Promise.resolve(false);
    while (failure === undefined && (!counters.exhausted() || (await more()))) {
      try {
        for (const [kind, ms] of [
          ["rate_limit", debt.owedMs],
          ["think", thinkMs],
        ] as const) {
          if (ms <= 0) continue;
          const fromMs = scheduler.now();
          await scheduler.sleep(ms, signal);
          loop.onWait(fromMs, scheduler.now(), kind);
        }
        debt.owedMs = 0;
        thinkMs = 0;
        if (signal.aborted || scheduler.now() >= loop.endMs()) return;
        const index = counters.takeIndex();
        // None now: counters whose count may grow are asked again at the loop's head (`more`).
        if (index === null) {
          if (counters.more) continue;
          return;
        }
        const seq = counters.takeSeq();
        const turn = session?.next(i, index);
        const raw = await loop.send(index, turn);
        const endMs = scheduler.now();
        if (raw.outcome === "rate_limited") {
          debt.streak++;
          debt.owedMs = rateLimitWaitMs(raw.retryAfterSeconds, debt.streak);
        } else debt.streak = 0;
        if (session) thinkMs = session.after(i, raw);
        if (!loop.onResult({ index, seq, raw, endMs, ...(turn ? { turn: turn.turn } : {}) })) return;
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(loop.debts.map(worker));
  if (failure !== undefined) throw failure.error;
}
