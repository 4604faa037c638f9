/**
 * @module The client's health watch on the real event loop: a first token read out of a stall is
 * counted as waiting. Real time: the stalls are 150 ms of busy work on this thread (at least 150 ms
 * whatever else the machine does), far above what a loaded machine adds to a free loop's read.
 */
import { describe, expect, it } from "vitest";
import { watchClientHealth } from "./health.ts";

/** Holds the event loop for `ms` of busy work. */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
}
const STALL_MS = 150;
/** Lets the watch's 1 ms tick run a few times. */
const idle = () => new Promise((r) => setTimeout(r, 5));

describe("watchClientHealth", () => {
  it("counts the stall a first token's read came out of, and nothing for a read on a free loop", async () => {
    const stalled = watchClientHealth();
    await idle();
    stall(STALL_MS);
    stalled.firstTokenRead();
    const seen = stalled.stop();

    const free = watchClientHealth();
    await idle();
    free.firstTokenRead();
    const unseen = free.stop();

    expect(seen.firstTokenReadDelayMs).toBeGreaterThanOrEqual(STALL_MS - 2);
    expect(seen.firstTokenReadDelayMs).toBeGreaterThan(unseen.firstTokenReadDelayMs as number);
  });

  it("takes the median over the level's first tokens: one stalled read of three does not decide", async () => {
    const watch = watchClientHealth();
    await idle();
    stall(STALL_MS);
    watch.firstTokenRead();
    await idle();
    watch.firstTokenRead();
    await idle();
    watch.firstTokenRead();
    const once = watch.stop();

    const twice = watchClientHealth();
    await idle();
    stall(STALL_MS);
    twice.firstTokenRead();
    twice.firstTokenRead();
    await idle();
    twice.firstTokenRead();
    expect(twice.stop().firstTokenReadDelayMs).toBeGreaterThan(once.firstTokenReadDelayMs as number);
  });
});
