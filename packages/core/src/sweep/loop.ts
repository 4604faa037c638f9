/**
 * @module The parts of a level's closed loop that its main thread and its worker threads share: the
 * worker pool, the wait after a 429, and the slots of the counters threads share. Kept apart from
 * the sweep so a thread loads them without the sweep (no import cycle).
 */

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

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Slots of the counters a level's threads share (an Int32Array on a SharedArrayBuffer): the next request index. */
export const SHARED_NEXT_INDEX = 0;
/** The level's send order, warm-up included: the early-end rule counts the first sends. */
export const SHARED_SEND_SEQ = 1;
/** Set to 1 when the level must send nothing more. */
export const SHARED_STOP = 2;
export const SHARED_SLOTS = 3;

/**
 * A fixed pool of `size` workers (ids 0 .. size-1) taking indexes 0, 1, ... below `count`; a task
 * returning false stops its worker. Bounded by construction: never more than `size` tasks at once.
 * `beforeTake` runs before a worker takes its next index, only while one is left (a worker's wait
 * after a 429: indexes stay free for the others meanwhile); returning false stops that worker.
 */
export async function pool(
  size: number,
  count: number,
  task: (index: number, worker: number) => Promise<unknown>,
  beforeTake?: (worker: number) => Promise<boolean>,
): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async (_: unknown, id: number) => {
    while (failure === undefined && next < count) {
      try {
        if (beforeTake && (!(await beforeTake(id)) || next >= count)) return;
        const index = next++;
        if ((await task(index, id)) === false) return;
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(0, size) }, worker));
  if (failure !== undefined) throw failure;
}
