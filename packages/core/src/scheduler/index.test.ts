import { describe, expect, it } from "vitest";
import { epochScheduler, performanceScheduler, systemScheduler } from "./index.ts";

describe("performanceScheduler", () => {
  it("reads performance.now() on this thread's origin, epoch ms on origin 0", () => {
    // Order, not spans: each reading sits between the two around it.
    const before = performance.now();
    const system = systemScheduler.now();
    const after = performance.now();
    expect(system).toBeGreaterThanOrEqual(before);
    expect(system).toBeLessThanOrEqual(after);
    const epochBefore = performance.timeOrigin + performance.now();
    const epoch = epochScheduler().now();
    const epochAfter = performance.timeOrigin + performance.now();
    expect(epoch).toBeGreaterThanOrEqual(epochBefore);
    expect(epoch).toBeLessThanOrEqual(epochAfter);
  });

  it("tells a thread how to rebuild it", () => {
    expect(performanceScheduler(1234).threadable).toEqual({ timeOriginMs: 1234 });
    expect(systemScheduler.threadable).toEqual({ timeOriginMs: performance.timeOrigin });
  });

  it("fires a timer and can cancel one", async () => {
    const fired: string[] = [];
    const cancelled = systemScheduler.setTimer(() => fired.push("cancelled"), 1);
    cancelled.cancel();
    await new Promise<void>((resolve) => systemScheduler.setTimer(resolve, 1));
    await systemScheduler.sleep(2);
    expect(fired).toEqual([]);
  });
});
