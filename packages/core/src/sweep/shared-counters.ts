/**
 * @module The counters a level's worker threads share (an Int32Array on a SharedArrayBuffer, read
 * and written with `Atomics`): the next request index, the send order and a stop flag, so every
 * index is sent once whichever thread takes it.
 */
import type { LevelCounters } from "../drive/loop.ts";

const NEXT_INDEX = 0;
const SEND_SEQ = 1;
const STOP = 2;
const SLOTS = 3;

/** The shared memory of one level's counters; its send order starts at `firstSeq` (after the warm-up). */
export function sharedCountersBuffer(firstSeq: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
  new Int32Array(buffer)[SEND_SEQ] = firstSeq;
  return buffer;
}

export class SharedCounters implements LevelCounters {
  private readonly slots: Int32Array;

  /** `count` indexes in all (Infinity for a timed level); `signal` ends this thread's share at once. */
  constructor(
    buffer: SharedArrayBuffer,
    private readonly count: number,
    private readonly signal?: AbortSignal,
  ) {
    this.slots = new Int32Array(buffer);
  }

  private stopped(): boolean {
    return Atomics.load(this.slots, STOP) === 1 || this.signal?.aborted === true;
  }

  takeIndex(): number | null {
    if (this.stopped()) return null;
    const index = Atomics.add(this.slots, NEXT_INDEX, 1);
    return index < this.count ? index : null;
  }

  takeSeq(): number {
    return Atomics.add(this.slots, SEND_SEQ, 1);
  }

  exhausted(): boolean {
    return this.stopped() || Atomics.load(this.slots, NEXT_INDEX) >= this.count;
  }

  /** Every thread sends nothing more. */
  stop(): void {
    Atomics.store(this.slots, STOP, 1);
  }
}
