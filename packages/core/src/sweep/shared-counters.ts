/**
 * @module The counters a level's threads share (an Int32Array on a SharedArrayBuffer, read and written
 * with `Atomics`): the next request index, the level's count, a stop flag and a final flag, so every
 * index is sent once whichever thread takes it. A send's place in the level's send order is taken with
 * its index (one atomic step across threads), so the level's send order is its index order, on one
 * thread or several: what a searched level's looks read (`ProbeJudge`). The main thread may raise the
 * count (a level not judged draws on past its failures), stop the sends (a look decided) or call the
 * count final; a thread whose workers wait for more (`more`) is woken by its thread's `wake` message.
 */
import type { LevelCounters } from "../drive/loop.ts";

const NEXT_INDEX = 0;
const STOP = 1;
const COUNT = 2;
const FINAL = 3;
const FIRST_SEQ = 4;
const SLOTS = 5;

/** A count of Infinity (a timed level) as an Int32. */
const UNBOUNDED = 2 ** 31 - 1;

/** The shared memory of one level's counters: `count` measured indexes, its send order from `firstSeq` (after the warm-up). */
export function sharedCountersBuffer(firstSeq: number, count: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
  const slots = new Int32Array(buffer);
  slots[FIRST_SEQ] = firstSeq;
  slots[COUNT] = Math.min(count, UNBOUNDED);
  return buffer;
}

export class SharedCounters implements LevelCounters {
  private readonly slots: Int32Array;
  /** The index this thread took last: its send's place follows from it (`takeSeq` comes right after `takeIndex`). */
  private taken = -1;
  private waiting: (() => void)[] = [];
  /** The main thread's side: how often it raised, stopped or finished the counters (`threaded` wakes the threads on a change). */
  changes = 0;
  /**
   * `LevelCounters.more`, where the level's count may grow: true once it grew past the indexes taken,
   * false once stopped or final. Absent otherwise: a worker with nothing left leaves.
   */
  readonly more?: () => Promise<boolean>;

  /** `signal` ends this thread's share at once; `growable`: the main thread may raise the count. */
  constructor(
    readonly buffer: SharedArrayBuffer,
    private readonly signal?: AbortSignal,
    growable = false,
  ) {
    this.slots = new Int32Array(buffer);
    signal?.addEventListener("abort", () => this.wake(), { once: true });
    if (growable) this.more = () => this.moreComing();
  }

  private stopped(): boolean {
    return Atomics.load(this.slots, STOP) === 1 || this.signal?.aborted === true;
  }

  private count(): number {
    return Atomics.load(this.slots, COUNT);
  }

  takeIndex(): number | null {
    for (;;) {
      if (this.stopped()) return null;
      const index = Atomics.load(this.slots, NEXT_INDEX);
      if (index >= this.count()) return null;
      if (Atomics.compareExchange(this.slots, NEXT_INDEX, index, index + 1) === index) {
        this.taken = index;
        return index;
      }
    }
  }

  takeSeq(): number {
    return Atomics.load(this.slots, FIRST_SEQ) + this.taken;
  }

  exhausted(): boolean {
    return this.stopped() || Atomics.load(this.slots, NEXT_INDEX) >= this.count();
  }

  private async moreComing(): Promise<boolean> {
    for (;;) {
      if (this.stopped() || Atomics.load(this.slots, FINAL) === 1) return false;
      if (!this.exhausted()) return true;
      // Registered before this thread yields: a wake posted after the check above is not missed.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** A thread's side: the main thread changed the count, stopped or called it final; waiting workers look again. */
  wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** The main thread's side: indexes taken so far. */
  takenCount(): number {
    return Math.min(Atomics.load(this.slots, NEXT_INDEX), this.count());
  }

  /** The main thread's side: the level may send up to `count` (never fewer than before). */
  raise(count: number): void {
    const next = Math.min(count, UNBOUNDED);
    if (next <= this.count()) return;
    Atomics.store(this.slots, COUNT, next);
    this.changes++;
  }

  /** Every thread sends nothing more (their requests in flight go on unless aborted). */
  stop(): void {
    if (Atomics.exchange(this.slots, STOP, 1) === 0) this.changes++;
  }

  /** The main thread's side: the count will not grow again (every send taken has ended). */
  finish(): void {
    if (Atomics.exchange(this.slots, FINAL, 1) === 0) this.changes++;
  }
}
