import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { epochScheduler, onAbort, performanceScheduler, systemScheduler } from "./index.ts";

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

describe("onAbort and sleeps on a shared signal", () => {
  it("128 sleeps on one signal hold one listener, none once they end; an abort ends every sleep", async () => {
    const ended = new AbortController();
    const sleeps = Array.from({ length: 128 }, () => systemScheduler.sleep(1, ended.signal));
    expect(getEventListeners(ended.signal, "abort")).toHaveLength(1);
    await Promise.all(sleeps);
    expect(getEventListeners(ended.signal, "abort")).toHaveLength(0);

    const aborted = new AbortController();
    const long = Array.from({ length: 128 }, () => systemScheduler.sleep(60_000, aborted.signal));
    expect(getEventListeners(aborted.signal, "abort")).toHaveLength(1);
    aborted.abort();
    await Promise.all(long);
    expect(getEventListeners(aborted.signal, "abort")).toHaveLength(0);
  });

  it("runs each callback once, and not one taken off", () => {
    const controller = new AbortController();
    const ran: number[] = [];
    onAbort(controller.signal, () => ran.push(1));
    const off = onAbort(controller.signal, () => ran.push(2));
    off();
    off();
    controller.abort();
    controller.abort();
    expect(ran).toEqual([1]);
  });
});
