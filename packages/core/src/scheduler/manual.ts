/**
 * @module A scheduler whose time moves only when a test moves it: timers fire in time order, each
 * setting `now()` to its due time, so figures computed from it are exact. Not for real I/O: a
 * socket's events do not wait for it.
 */
import { type Scheduler, sleepOn, type Timer } from "./index.ts";

interface Pending {
  atMs: number;
  order: number;
  callback: () => void;
}

/** Lets every promise continuation and immediate that is ready run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

export class ManualScheduler implements Scheduler {
  private nowMs: number;
  private order = 0;
  private pending: Pending[] = [];

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  setTimer(callback: () => void, ms: number): Timer {
    const entry: Pending = { atMs: this.nowMs + Math.max(0, ms), order: this.order++, callback };
    this.pending.push(entry);
    return {
      cancel: () => {
        this.pending = this.pending.filter((p) => p !== entry);
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Timers not yet fired. */
  get timers(): number {
    return this.pending.length;
  }

  /** Fires the earliest timer (time moves to its due time); false when none is pending. */
  private fireNext(): boolean {
    if (this.pending.length === 0) return false;
    const next = this.pending.reduce((a, b) => (b.atMs < a.atMs || (b.atMs === a.atMs && b.order < a.order) ? b : a));
    this.pending = this.pending.filter((p) => p !== next);
    this.nowMs = Math.max(this.nowMs, next.atMs);
    next.callback();
    return true;
  }

  /** Moves time forward by `ms`, firing every timer due meanwhile in order (continuations run between). */
  async advance(ms: number): Promise<void> {
    const untilMs = this.nowMs + ms;
    await settle();
    while (this.pending.some((p) => p.atMs <= untilMs)) {
      this.fireNext();
      await settle();
    }
    this.nowMs = untilMs;
  }

  /**
   * Runs `work` to its end: whenever nothing else is ready, time jumps to the next timer. Rejects
   * when `work` waits on something no timer will bring (nothing pending), or after `maxTimers` timers.
   */
  async run<T>(work: Promise<T>, maxTimers = 1_000_000): Promise<T> {
    let settled = false;
    const watched = work.finally(() => {
      settled = true;
    });
    watched.catch(() => {});
    for (let fired = 0; ; fired++) {
      await settle();
      if (settled) return watched;
      if (fired >= maxTimers) throw new Error(`ManualScheduler.run: still running after ${maxTimers} timers`);
      if (!this.fireNext()) throw new Error("ManualScheduler.run: the work waits, but no timer is pending");
    }
  }
}
