/**
 * @module A sweep's levels on a manual scheduler with a scripted endpoint: 429 waits, stops,
 * deadlines, timed levels and early ends in exact numbers, no wall clock involved.
 */
import { describe, expect, it } from "vitest";
import { loadPosition } from "../run/index.ts";
import { runSweep } from "./index.ts";
import { setup, TOKENS } from "./scripted.fixture.ts";

describe("a level on a manual scheduler", () => {
  it("waits retry-after after each 429: three refusals, exactly 3 s of waits, nothing sent twice", async () => {
    // Arrivals 1 (warm-up) to 10; the 3rd, 6th and 9th are refused with retry-after: 1.
    const { scheduler, endpoint, options } = setup(
      { concurrency: [1, 2], requestsPerLevel: 9, warmupRequests: 1 },
      (n) =>
        n % 3 === 2
          ? { outcome: "rate_limited", durationMs: 5, retryAfterSeconds: 1 }
          : { outcome: "ok", durationMs: 100 },
    );
    const doc = await scheduler.run(runSweep(options));
    const level = doc.levels[0] as (typeof doc.levels)[number];
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1]);
    expect(level.requests).toMatchObject({ sent: 9, ok: 6, rateLimited: 3 });
    expect(level.rateLimitWaitMs).toBe(3000);
    expect(level.invalid.map((r) => r.code)).toContain("rate_limited");
    expect(new Set(endpoint.arrivals.map((a) => a.prompt)).size).toBe(10);
    // 1 warm-up + 6 ok of 100 ms, 3 refusals of 5 ms and 3 waits of 1 s, one after another.
    expect(scheduler.now()).toBe(700 + 15 + 3000);
  });

  it("holds exactly N in flight through a timed level and sends nothing after its end", async () => {
    const { scheduler, endpoint, options } = setup(
      { concurrency: [4], levelDurationSeconds: 1, warmupRequests: 0 },
      () => ({ outcome: "ok", durationMs: 100 }),
    );
    const doc = await scheduler.run(runSweep(options));
    const level = doc.levels[0] as (typeof doc.levels)[number];
    // 4 workers, 100 ms each, sends at 0, 100, ..., 900 ms: 40 requests.
    expect(level.requests.sent).toBe(40);
    expect(Math.max(...endpoint.arrivals.map((a) => a.atMs))).toBe(900);
    expect(level.achievedConcurrency).toBe(4);
    expect(level.wallTimeMs).toBe(1000);
    expect(level.aggregateOutputTokensPerSecond).toBe((40 * TOKENS) / 1);
    expect(Math.max(...endpoint.inFlightLog.map(([, n]) => n))).toBe(4);
  });

  it("takes the steady aggregate over the judged window (ramp end to last send), leaving out the drain", async () => {
    // N = 4, 100 ms a request, 6 requests: four sent at 0, two refills at 100 ms, done at 200 ms.
    const { scheduler, options } = setup({ concurrency: [4], requestsPerLevel: 6, warmupRequests: 0 }, () => ({
      outcome: "ok",
      durationMs: 100,
    }));
    const doc = await scheduler.run(runSweep(options));
    const level = doc.levels[0] as (typeof doc.levels)[number];
    // Whole level: 6 answers over 200 ms, half of its second 100 ms only two in flight.
    expect(level.aggregateOutputTokensPerSecond).toBe((6 * TOKENS) / 0.2);
    // Window [0, 100] ms: the first four answers' chunks, all four users busy.
    expect(level.steadyAggregateOutputTokensPerSecond).toBe((4 * TOKENS) / 0.1);
    // One round and nothing after the ramp: no window to judge.
    const one = setup({ concurrency: [4], requestsPerLevel: 4, warmupRequests: 0 }, () => ({
      outcome: "ok",
      durationMs: 100,
    }));
    const single = await one.scheduler.run(runSweep(one.options));
    expect(single.levels[0]?.steadyAggregateOutputTokensPerSecond).toBeNull();
  });

  it("ends a 429 wait at once on a stop: the run is partial, the levels before are kept", async () => {
    const stop = new AbortController();
    // Level 1 is clean; at level 2 every request is refused with a retry-after far past the 30 s cap.
    const { scheduler, options } = setup({ concurrency: [1, 2], requestsPerLevel: 4, warmupRequests: 0 }, (n) =>
      n < 4 ? { outcome: "ok", durationMs: 100 } : { outcome: "rate_limited", durationMs: 5, retryAfterSeconds: 3600 },
    );
    scheduler.setTimer(() => stop.abort(), 1000);
    const doc = await scheduler.run(runSweep({ ...options, signal: stop.signal }));
    expect(doc.status).toBe("partial");
    expect(doc.partialReason).toBe("stopped by signal during concurrency 2");
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1]);
    // It ended when stopped, not when the 30 s wait would have run out.
    expect(scheduler.now()).toBe(1000);
  });

  it("stops at the deadline with the requests in flight ended then", async () => {
    const { scheduler, options } = setup({ concurrency: [1, 2, 4], requestsPerLevel: 4, warmupRequests: 0 }, () => ({
      outcome: "ok",
      durationMs: 100,
    }));
    // Level 1 takes 400 ms; level 2 250 ms, as its second worker starts 50 ms in (its start spread is
    // level 1's e2e p50, 100 ms, over N = 2): the deadline falls inside level 4.
    const doc = await scheduler.run(runSweep({ ...options, deadlineMs: 750 }));
    expect(doc.status).toBe("partial");
    expect(doc.partialReason).toBe("deadline reached during concurrency 4");
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1, 2]);
    expect(doc.levels.map((l) => l.closed?.startSpreadMs)).toEqual([0, 100]);
    expect(scheduler.now()).toBe(750);
  });

  it("ends a level at once when its first 4 requests, warm-up included, fail: the ones in flight are dropped", async () => {
    const { scheduler, endpoint, options } = setup(
      { concurrency: [8, 16], requestsPerLevel: 64, warmupRequests: 2 },
      () => ({ outcome: "http_error", durationMs: 10 }),
    );
    const doc = await scheduler.run(runSweep(options));
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([8]);
    const level = doc.levels[0] as (typeof doc.levels)[number];
    // 2 warm-up failures, then 8 sent at once; the first 2 of them to end made 4 failures in a row.
    // The first one's worker had already sent its next (the 11th): it was aborted with the other 7.
    expect(endpoint.arrivals.length).toBe(11);
    expect(level.requests.sent).toBe(2);
    expect(level.invalid.map((r) => r.code)).toContain("ended_early");
    expect(doc.summary.stop).toMatchObject({ level: 1, load: { kind: "closed", concurrency: 8 }, reason: "failures" });
    expect(scheduler.now()).toBe(20);
  });

  it("spreads a closed loop's first N sends over one request duration: no waves, N in flight through the body", async () => {
    // Equal durations of 400 ms, as with ignoreEos; the warm-up's tells the expected duration.
    const { scheduler, endpoint, options } = setup(
      { concurrency: [4], requestsPerLevel: 16, warmupRequests: 1 },
      () => ({
        outcome: "ok",
        durationMs: 400,
      }),
    );
    const doc = await scheduler.run(runSweep(options));
    const level = doc.levels[0] as (typeof doc.levels)[number];
    expect(level.closed?.startSpreadMs).toBe(400);
    // After the warm-up (0-400), sends every 100 ms: never 4 at one instant, wave after wave.
    const sends = endpoint.arrivals.slice(1).map((a) => a.atMs);
    expect(sends).toEqual(Array.from({ length: 16 }, (_, i) => 400 + 100 * i));
    // From the 4th send to the last, exactly 4 in flight.
    expect(level.achievedConcurrency).toBe(4);
  });
});
