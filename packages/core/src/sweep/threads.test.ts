/**
 * @module Threaded levels on a manual scheduler: the threading wrapper runs each driver's parts in
 * this process's threads (`inProcessThreads`, the scripted endpoint as every thread's client), so a
 * level on 2 threads is measured in exact numbers, against the same level on one thread.
 */
import { describe, expect, it } from "vitest";
import type { RunDocument } from "../run/index.ts";
import { runSweep } from "./index.ts";
import { poissonGapsMs } from "./open-loop.ts";
import { setup, TOKENS } from "./scripted.fixture.ts";
import { inProcessThreads } from "./threads.ts";

/** Runs a sweep of `workload` on a fresh scripted endpoint, on `threads` in-process threads. */
async function sweepOn(threads: number, workload: Record<string, unknown>, durationMs: number) {
  const { scheduler, endpoint, options } = setup(workload, () => ({ outcome: "ok", durationMs }));
  const threadHost = inProcessThreads({ scheduler, client: endpoint, watchHealth: options.watchHealth });
  const doc = await scheduler.run(runSweep({ ...options, runId: "fixed", threads, threadHost }));
  return { doc, sends: endpoint.arrivals.map((a) => a.atMs), endpoint };
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
    expect(level.startSpreadMs).toBe(100);
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
    expect(level.ratePerSecond).toBe(20);
    expect(level.scheduleLagMs).toEqual({ p50: 0, p99: 0 });
    // From the first measured send (50 ms) to the last one's end (+50 ms).
    expect(level.wallTimeMs).toBe(expected.at(-1));
  });
});
