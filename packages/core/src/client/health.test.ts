/** @module The client's health watch on the real event loop: stalls count toward first tokens only while one is awaited. */
import { describe, expect, it } from "vitest";
import { watchClientHealth } from "./health.ts";

/** Holds the event loop for `ms` of busy work, then lets a few timer ticks run. */
async function stall(ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
  for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 2));
}

describe("watchClientHealth", () => {
  it("counts a stall toward first tokens' reads while a request waits for its first token, not after", async () => {
    const awaited = watchClientHealth();
    awaited.started();
    await stall(30);
    awaited.settled();
    const seen = awaited.stop();

    const none = watchClientHealth();
    none.started();
    none.settled();
    await stall(30);
    const unseen = none.stop();

    expect(seen.firstTokenReadDelayMs).toBeGreaterThan(0);
    expect(unseen.firstTokenReadDelayMs).toBe(0);
    // The level-wide signals saw both stalls alike.
    expect(unseen.eventLoopLagP99Ms).toBeGreaterThan(0);
  });

  it("waits for the last of several requests: a window closes when none waits any more", async () => {
    const watch = watchClientHealth();
    watch.started();
    watch.started();
    watch.settled();
    await stall(30);
    watch.settled();
    watch.settled();
    expect(watch.stop().firstTokenReadDelayMs).toBeGreaterThan(0);
  });
});
