/** @module The worker loop on a manual scheduler: bounded, every index once, 429 waits served before the next index, exact times. */
import { describe, expect, it } from "vitest";
import type { RawResult } from "../client/index.ts";
import { ManualScheduler } from "../scheduler/manual.ts";
import { type LevelCounters, type LoopResult, newDebts, runWorkers, type WorkerLoop } from "./loop.ts";

/** A result with only what the loop reads filled in. */
function raw(outcome: RawResult["outcome"], startMs: number, retryAfterSeconds: number | null = null): RawResult {
  return { outcome, startMs, retryAfterSeconds } as RawResult;
}

/** Counters over `count` indexes, as the level runner hands them out on one thread. */
function counters(count: number): LevelCounters {
  let next = 0;
  let seq = 0;
  return {
    takeIndex: () => (next < count ? next++ : null),
    takeSeq: () => seq++,
    exhausted: () => next >= count,
  };
}

/** A loop whose every request takes `durationMs` of scheduler time and ends as `outcomeOf(index)` says. */
function setup(
  workers: number,
  count: number,
  outcomeOf: (index: number) => [RawResult["outcome"], number | null] = () => ["ok", null],
  durationMs = 10,
) {
  const scheduler = new ManualScheduler();
  const results: LoopResult[] = [];
  const waits: [number, number][] = [];
  const sends: [number, number][] = [];
  let inFlight = 0;
  let most = 0;
  const loop: WorkerLoop = {
    debts: newDebts(workers),
    counters: counters(count),
    scheduler,
    signal: new AbortController().signal,
    endMs: () => Number.POSITIVE_INFINITY,
    send: async (index) => {
      const startMs = scheduler.now();
      sends.push([index, startMs]);
      most = Math.max(most, ++inFlight);
      await scheduler.sleep(durationMs);
      inFlight--;
      const [outcome, retryAfter] = outcomeOf(index);
      return raw(outcome, startMs, retryAfter);
    },
    onResult: (r) => {
      results.push(r);
      return true;
    },
    onWait: (fromMs, toMs) => waits.push([fromMs, toMs]),
  };
  return { scheduler, loop, results, waits, sends, most: () => most };
}

describe("runWorkers", () => {
  it("sends every index once, never more than its workers at once", async () => {
    const { scheduler, loop, results, most } = setup(3, 10);
    await scheduler.run(runWorkers(loop));
    expect(most()).toBe(3);
    expect(results.map((r) => r.index).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(results.map((r) => r.seq).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // 10 requests of 10 ms on 3 workers: 4 rounds.
    expect(scheduler.now()).toBe(40);
  });

  it("serves a 429's retry-after before the worker's next index, while the others take what is left", async () => {
    // Index 1 is refused with retry-after: 1 (s).
    const { scheduler, loop, waits, sends } = setup(2, 6, (i) => (i === 1 ? ["rate_limited", 1] : ["ok", null]));
    await scheduler.run(runWorkers(loop));
    expect(waits).toEqual([[10, 1010]]);
    // Worker 0 took index 0, 2, 3, 4, 5 back to back; worker 1 had nothing left after its wait.
    expect(sends).toEqual([
      [0, 0],
      [1, 0],
      [2, 10],
      [3, 20],
      [4, 30],
      [5, 40],
    ]);
    expect(scheduler.now()).toBe(1010);
  });

  it("doubles the wait per 429 in a row without retry-after, and clears the streak on a success", async () => {
    const outcomes: RawResult["outcome"][] = ["rate_limited", "rate_limited", "ok", "rate_limited", "ok"];
    const { scheduler, loop, waits } = setup(1, 5, (i) => [outcomes[i] as RawResult["outcome"], null]);
    await scheduler.run(runWorkers(loop));
    expect(waits.map(([from, to]) => to - from)).toEqual([1000, 2000, 1000]);
  });

  it("sends nothing after a timed level's end", async () => {
    const { scheduler, loop, sends } = setup(2, Number.POSITIVE_INFINITY);
    loop.endMs = () => 35;
    await scheduler.run(runWorkers(loop));
    expect(sends.map(([, t]) => t)).toEqual([0, 0, 10, 10, 20, 20, 30, 30]);
    expect(scheduler.now()).toBe(40);
  });

  it("stops every worker on the first error and rethrows it", async () => {
    const { scheduler, loop, sends } = setup(2, 10);
    loop.onResult = (r) => {
      if (r.index === 2) throw new Error("boom");
      return true;
    };
    await expect(scheduler.run(runWorkers(loop))).rejects.toThrow("boom");
    // Index 2 ended at 20 ms; the other worker's request of that round was its last.
    expect(sends.length).toBe(4);
  });
});
