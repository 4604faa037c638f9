/**
 * @module The scheduler port: the monotonic clock, timers and sleeps that measurement (the client,
 * the level runner, worker threads) and the reference engine take their time from. The system one
 * reads `performance.now()`; tests inject `ManualScheduler` (./manual.ts) and get exact numbers.
 */

/** A monotonic clock in ms. */
export interface Clock {
  now(): number;
}

/** A pending timer; `cancel` is harmless after it fired. */
export interface Timer {
  cancel(): void;
}

/** Time as measurement sees it: now, one-shot timers and sleeps, all in the same ms. */
export interface Scheduler extends Clock {
  /** Calls `callback` once, `ms` from now (at once for ms <= 0, but never synchronously). */
  setTimer(callback: () => void, ms: number): Timer;
  /** Resolves `ms` from now, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * How a worker thread rebuilds this scheduler: it reads `performance.now()` shifted so that
   * `now()` is epoch ms minus `timeOriginMs`. Absent when a worker thread cannot rebuild it (a manual
   * scheduler): levels then run on the calling thread, unless the sweep is given threads that run on
   * this very scheduler (`inProcessThreads`, packages/core/src/sweep/threads.ts).
   */
  readonly threadable?: { timeOriginMs: number };
}

/** The callbacks waiting on a signal, and the one listener that runs them. */
interface AbortFanOut {
  callbacks: Set<() => void>;
  listener: () => void;
}
const fanOuts = new WeakMap<AbortSignal, AbortFanOut>();

/**
 * Runs `callback` once when `signal` aborts; returns what takes it off. However many callbacks wait
 * on one signal (a level's N requests and N sleeps share its signal), the signal has one listener,
 * removed with the last callback: one listener per waiter warned `MaxListenersExceededWarning` past
 * 10 and could outlive the level.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let fanOut = fanOuts.get(signal);
  if (!fanOut) {
    const callbacks = new Set<() => void>();
    const listener = () => {
      fanOuts.delete(signal);
      for (const each of callbacks) each();
      callbacks.clear();
    };
    fanOut = { callbacks, listener };
    fanOuts.set(signal, fanOut);
    signal.addEventListener("abort", listener, { once: true });
  }
  const { callbacks, listener } = fanOut;
  callbacks.add(callback);
  return () => {
    if (!callbacks.delete(callback) || callbacks.size > 0) return;
    signal.removeEventListener("abort", listener);
    if (fanOuts.get(signal) === fanOut) fanOuts.delete(signal);
  };
}

/** Sleeps on any scheduler's timers: resolves after `ms`, or at once when `signal` aborts. */
export function sleepOn(scheduler: Pick<Scheduler, "setTimer">, ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      timer.cancel();
      off?.();
      resolve();
    };
    const timer = scheduler.setTimer(done, ms);
    const off = signal ? onAbort(signal, done) : undefined;
  });
}

/**
 * The real scheduler: `now()` is epoch ms minus `timeOriginMs`, read from `performance.now()` (so
 * monotonic), with Node's timers. The default origin is this thread's `performance.timeOrigin`, so
 * `now()` equals `performance.now()`; a thread given the main thread's origin shares its time base.
 */
export function performanceScheduler(timeOriginMs: number = performance.timeOrigin): Scheduler {
  const shift = performance.timeOrigin - timeOriginMs;
  const scheduler: Scheduler = {
    now: () => performance.now() + shift,
    setTimer(callback, ms) {
      const handle = setTimeout(callback, Math.max(0, ms));
      return { cancel: () => clearTimeout(handle) };
    },
    sleep: (ms, signal) => sleepOn(scheduler, ms, signal),
    threadable: { timeOriginMs },
  };
  return scheduler;
}

/** This thread's `performance.now()` and Node's timers. */
export const systemScheduler: Scheduler = performanceScheduler();

/** A real scheduler on epoch ms (`now()` = `performance.timeOrigin + performance.now()`): one time base across processes. */
export function epochScheduler(): Scheduler {
  return performanceScheduler(0);
}
