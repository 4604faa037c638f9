/**
 * @module Threaded levels on a manual scheduler: the threading wrapper runs each driver's parts in
 * this process's threads (`inProcessThreads`, the scripted endpoint as every thread's client), so a
 * level on 2 threads is measured in exact numbers, against the same level on one thread.
 */
import { describe, expect, it } from "vitest";
import { arrivalGapsMs, poissonGapsMs } from "../kinds/open/index.ts";
import { loadPosition, type RunDocument } from "../run/index.ts";
import { runSweep } from "./index.ts";
import { type Script, setup, TOKENS } from "./scripted.fixture.ts";
import { inProcessThreads } from "./threads.ts";

/** Runs a sweep of `workload` on a fresh scripted endpoint, on `threads` in-process threads. */
async function sweepOn(
  threads: number,
  workload: Record<string, unknown>,
  durationMs: number | Script,
  extra: { stopAtMs?: number } = {},
) {
  const script: Script = typeof durationMs === "number" ? () => ({ outcome: "ok", durationMs }) : durationMs;
  const { scheduler, endpoint, options } = setup(workload, script);
  const threadHost = inProcessThreads({ scheduler, client: endpoint, watchHealth: options.watchHealth });
  const stop = new AbortController();
  if (extra.stopAtMs !== undefined) scheduler.setTimer(() => stop.abort(), extra.stopAtMs);
  const doc = await scheduler.run(runSweep({ ...options, runId: "fixed", threads, threadHost, signal: stop.signal }));
  return { doc, sends: endpoint.arrivals.map((a) => a.atMs), endpoint, now: scheduler.now() };
}

/** A level as compared across thread counts: all but the thread count. */
const apartFromThreads = (doc: RunDocument) =>
  doc.levels.map((level) => ({ ...level, client: { ...level.client, threads: undefined } }));

describe("a closed-loop level on 2 threads", () => {
  it("sends, measures and spreads its start exactly as on one thread", async () => {
    // N = 4: the warm-up's 4 requests take 100 ms, so the measured loop's first sends spread over
    // 100 ms (workers 0, 1 on thread 0; 2, 3 on thread 1), then each worker sends again at +100 ms.
    const workload = { concurrency: [4], requestsPerLevel: 8, warmupRequests: 4 };
    const one = await sweepOn(1, workload, 100);
    const two = await sweepOn(2, workload, 100);
    const level = two.doc.levels[0] as RunDocument["levels"][number];

    expect(two.sends).toEqual([0, 0, 0, 0, 100, 125, 150, 175, 200, 225, 250, 275]);
    expect(level.client.threads).toBe(2);
    expect(level.requests).toMatchObject({ sent: 8, ok: 8 });
    expect(level.closed?.startSpreadMs).toBe(100);
    expect(level.wallTimeMs).toBe(275);
    expect(level.aggregateOutputTokensPerSecond).toBe((8 * TOKENS) / 0.275);
    expect(level.achievedConcurrency).toBe(4);
    expect(Math.max(...two.endpoint.inFlightLog.map(([, n]) => n))).toBe(4);
    expect(new Set(two.endpoint.arrivals.map((a) => a.prompt)).size).toBe(12);

    expect(one.sends).toEqual(two.sends);
    expect((one.doc.levels[0] as RunDocument["levels"][number]).client.threads).toBe(1);
    expect(apartFromThreads(two.doc)).toEqual(apartFromThreads(one.doc));
    expect(two.doc.samples).toEqual(one.doc.samples);
  });
});

describe("a conversation level on 2 threads", () => {
  it("holds each user's conversation in its thread, thinks there, and measures as on one thread", async () => {
    const workload = {
      concurrency: [4],
      requestsPerLevel: 24,
      warmupRequests: 0,
      conversation: { turns: 3, sharedPrefixTokens: 20, thinkSeconds: 0.5 },
    };
    const one = await sweepOn(1, workload, 100);
    const two = await sweepOn(2, workload, 100);
    const level = two.doc.levels[0] as RunDocument["levels"][number];
    expect(level.client.threads).toBe(2);
    // 4 users, 6 turns each: 2 conversations of 3 turns, thinking 0.5 s between turns.
    expect(level.conversation?.byTurn.map((t) => t.n)).toEqual([8, 8, 8]);
    expect(two.endpoint.arrivals.map((a) => a.request.history?.length)).toEqual(
      one.endpoint.arrivals.map((a) => a.request.history?.length),
    );
    expect(two.sends).toEqual(one.sends);
    expect(two.doc.samples).toEqual(one.doc.samples);
    expect(apartFromThreads(two.doc)).toEqual(apartFromThreads(one.doc));
  });
});

describe("a threaded level's waits, stops and early ends", () => {
  it("serves a 429's retry-after in the thread that got it: exactly 1 s of waits, as on one thread", async () => {
    // N = 2, 6 requests of 100 ms; the 2nd arrival is refused with retry-after: 1.
    const workload = { concurrency: [2], requestsPerLevel: 6, warmupRequests: 0 };
    const script: Script = (n) =>
      n === 1 ? { outcome: "rate_limited", durationMs: 10, retryAfterSeconds: 1 } : { outcome: "ok", durationMs: 100 };
    const one = await sweepOn(1, workload, script);
    const two = await sweepOn(2, workload, script);
    const level = two.doc.levels[0] as RunDocument["levels"][number];

    expect(level.client.threads).toBe(2);
    expect(level.rateLimitWaitMs).toBe(1000);
    expect(level.requests).toMatchObject({ sent: 6, ok: 5, rateLimited: 1 });
    // Worker 1 waits from 10 ms to 1010 ms while worker 0 sends at 0, 100, 200, ..., 900: it takes 4 more
    // (indexes 2 to 5), worker 1 none, so its wait is the level's last and ends it at 1010 ms.
    expect(two.sends).toEqual([0, 0, 100, 200, 300, 400]);
    expect(two.now).toBe(1010);
    expect(two.sends).toEqual(one.sends);
    expect(apartFromThreads(two.doc)).toEqual(apartFromThreads(one.doc));
  });

  it("ends a threaded level when stopped: its requests in flight end, the run is partial at the stop", async () => {
    const workload = { concurrency: [1, 4], requestsPerLevel: 40, warmupRequests: 0 };
    // Level 1 takes 40 x 100 ms; the stop comes 250 ms into level 2, with 4 requests in flight on 2 threads.
    const { doc, now } = await sweepOn(2, workload, 100, { stopAtMs: 4250 });
    expect(doc.status).toBe("partial");
    expect(doc.partialReason).toBe("stopped by signal during concurrency 4");
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1]);
    expect(now).toBe(4250);
  });

  it("ends a level at once when its first 4 requests fail, across threads", async () => {
    const workload = { concurrency: [4], requestsPerLevel: 40, warmupRequests: 0 };
    const { doc, sends, now } = await sweepOn(2, workload, () => ({ outcome: "http_error", durationMs: 100 }));
    const level = doc.levels[0] as RunDocument["levels"][number];
    expect(level.client.threads).toBe(2);
    // The first 4 sends (all at 0: nothing told a request's duration, so no spread) fail at 100 ms. On one
    // thread that ends the level before anything else leaves; across threads each worker has sent its
    // next (at 100 ms) before the main thread's verdict reaches it: those 4 end at once, aborted, and
    // are dropped, as with worker threads.
    expect(sends).toEqual([0, 0, 0, 0, 100, 100, 100, 100]);
    expect(now).toBe(100);
    expect(level.requests.sent).toBe(4);
    expect(level.invalid).toContainEqual({ code: "ended_early", detail: { firstRequests: 4 } });
  });
});

describe("an open-loop level on 2 threads", () => {
  it("sends each thread's Poisson stream at half the rate, on schedule, merged into one level", async () => {
    // 20 requests/s for 1 s after a 50 ms warm-up: thread i sends stream i of level 1 at 10 requests/s.
    const workload = {
      arrival: { mode: "poisson", ratesPerSecond: [20], seed: 7 },
      levelDurationSeconds: 1,
      warmupRequests: 1,
    };
    const { doc, sends } = await sweepOn(2, workload, 50);
    const level = doc.levels[0] as RunDocument["levels"][number];

    const expected: number[] = [];
    for (const stream of [0, 1]) {
      const gaps = poissonGapsMs(10, 7, 1, stream);
      for (let dueMs = 50; dueMs - 50 < 1000; dueMs += gaps()) expected.push(dueMs);
    }
    expected.sort((a, b) => a - b);
    expect(sends[0]).toBe(0);
    expect(sends.slice(1).sort((a, b) => a - b)).toEqual(expected);
    expect(level.client.threads).toBe(2);
    expect(level.requests.sent).toBe(expected.length);
    expect(level.load).toEqual({ kind: "open", arrival: "poisson", ratePerSecond: 20 });
    expect(level.open?.scheduleLagMs).toEqual({ p50: 0, p99: 0 });
    // From the first measured send (50 ms) to the last one's end (+50 ms).
    expect(level.wallTimeMs).toBe(expected.at(-1));
  });
});

describe("a gamma open-loop level on 2 threads", () => {
  it("sends the one gamma schedule, its arrivals dealt round to the threads, as one thread sends it", async () => {
    const workload = {
      arrival: { mode: "gamma", ratesPerSecond: [20], burstiness: 0.25, seed: 7 },
      levelDurationSeconds: 1,
      warmupRequests: 1,
    };
    const one = await sweepOn(1, workload, 50);
    const two = await sweepOn(2, workload, 50);
    const gaps = arrivalGapsMs({ arrival: "gamma", burstiness: 0.25 }, 20, 7, 1);
    const expected: number[] = [];
    for (let dueMs = 50; dueMs - 50 < 1000; dueMs += gaps()) expected.push(dueMs);
    expect(one.sends.slice(1)).toEqual(expected);
    expect(two.sends.slice(1).sort((a, b) => a - b)).toEqual(expected.map((ms) => expect.closeTo(ms, 6)));
    const level = two.doc.levels[0] as RunDocument["levels"][number];
    expect(level.client.threads).toBe(2);
    expect(level.load).toEqual({ kind: "open", arrival: "gamma", ratePerSecond: 20, burstiness: 0.25 });
    expect(two.doc.samples.map((s) => s.scheduledMs).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
      expected.map((ms) => expect.closeTo(ms - 50, 6)),
    );
  });
});
