import { describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "./memory.ts";

describe("MemoryRateLimiter", () => {
  it("allows `limit` per key per window, then again once the window has passed", async () => {
    const limiter = new MemoryRateLimiter();
    const take = (key: string, nowMs: number) => limiter.take(key, 3, 1000, nowMs);
    expect([await take("x", 0), await take("x", 10), await take("x", 20), await take("x", 999)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(await take("y", 999)).toBe(true);
    expect(await take("x", 1000)).toBe(true);
  });

  it("stays bounded in memory", async () => {
    const limiter = new MemoryRateLimiter(100);
    for (let i = 0; i < 1000; i++) await limiter.take(`k${i}`, 1, 60_000, 0);
    expect(limiter.size).toBeLessThanOrEqual(100);
  });
});
