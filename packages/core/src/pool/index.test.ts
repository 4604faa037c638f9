import { describe, expect, it } from "vitest";
import { mapBounded } from "./index.ts";

describe("mapBounded", () => {
  it("keeps the items' order and never runs more than the limit at once", async () => {
    let running = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      most = Math.max(most, running);
      for (let tick = 0; tick < n; tick++) await Promise.resolve();
      running--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it("rejects with the first failure after the calls in flight settle", async () => {
    const settled: number[] = [];
    const run = mapBounded([1, 2, 3], 3, async (n) => {
      if (n === 1) throw new Error("one");
      for (let tick = 0; tick < 5; tick++) await Promise.resolve();
      settled.push(n);
      return n;
    });
    await expect(run).rejects.toThrow("one");
    expect(settled.sort()).toEqual([2, 3]);
  });
});
