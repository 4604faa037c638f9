/** @module The closed loop's worker pool: bounded, every index once, a worker's wait served before it takes an index. */
import { describe, expect, it } from "vitest";
import { pool } from "./loop.ts";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("pool", () => {
  it("runs every index once with never more than `size` tasks at once", async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await pool(3, 10, async (index) => {
      most = Math.max(most, ++running);
      seen.push(index);
      await tick();
      running--;
    });
    expect(most).toBe(3);
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("lets the other workers take the indexes while one waits", async () => {
    const taken: [number, number][] = [];
    let waits = 0;
    let waited = false;
    await pool(
      2,
      4,
      async (index, worker) => {
        taken.push([worker, index]);
        await tick();
      },
      async (worker) => {
        // Worker 1 owes one long wait before its second index.
        if (worker === 1 && taken.some(([w]) => w === 1) && !waited) {
          waited = true;
          waits++;
          for (let i = 0; i < 20; i++) await tick();
        }
        return true;
      },
    );
    // Worker 1 took index 1, then waited; worker 0 took everything left meanwhile.
    expect(taken.filter(([w]) => w === 1).map(([, i]) => i)).toEqual([1]);
    expect(taken.filter(([w]) => w === 0).map(([, i]) => i)).toEqual([0, 2, 3]);
    expect(waits).toBe(1);
  });

  it("calls beforeTake only while an index is left: no wait for nothing", async () => {
    let calls = 0;
    await pool(
      2,
      2,
      async () => tick(),
      async () => {
        calls++;
        return true;
      },
    );
    expect(calls).toBe(2);
  });

  it("stops a worker whose beforeTake says false", async () => {
    const seen: number[] = [];
    await pool(
      1,
      5,
      async (index) => {
        seen.push(index);
      },
      async () => seen.length < 2,
    );
    expect(seen).toEqual([0, 1]);
  });
});
