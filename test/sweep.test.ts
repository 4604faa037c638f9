/** @module The sweep against the reference targets over real HTTP: measurement against the server's own record. */

import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { loadPosition } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import type { StreamProfile } from "@kneeboard/reference";
import { type ReferenceProcess, startReferenceProcess } from "@kneeboard/reference/process";
import { accuracyProblems, clientError, epochClock, statusProblems } from "@kneeboard/test-support/accuracy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FAST: StreamProfile = {
  stepBaseMs: 4,
  stepPerSeqMs: 0.25,
  slots: 16,
  prefillBaseMs: 10,
  prefillPerTokenMs: 0.02,
};
let server: ReferenceProcess;

beforeAll(async () => {
  server = await startReferenceProcess([
    { kind: "model", id: "fast", profile: FAST },
    // Each decode step as long at any occupancy: requests of equal length take equal time.
    { kind: "model", id: "even", profile: { ...FAST, stepPerSeqMs: 0 } },
    { kind: "model", id: "chunky", profile: { ...FAST, tokensPerChunk: 4, roleChunk: true } },
    { kind: "model", id: "nousage", profile: { ...FAST, sendUsage: false } },
    {
      kind: "gateway",
      id: "gw",
      defaultProvider: "a",
      providers: [
        { name: "a", profile: FAST, fallbackEvery: 5 },
        { name: "b", profile: FAST },
      ],
    },
  ]);
});
afterAll(() => server.close());

function setup(
  model: string,
  workload: Record<string, unknown>,
  route: Record<string, unknown> = { gateway: "direct" },
) {
  const config = parseConfig(
    JSON.stringify({ targets: [{ id: model, label: model, baseURL: server.url, model, route }], workload }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  return { target, workload: workloadFor(config, target) };
}

describe("sweep against a reference target", () => {
  it.each([
    [1, 12],
    [4, 24],
    [16, 96],
  ])(
    "measures TTFT within 10 ms + 3 percent and per-stream tok/s within 3 percent of the server's record (or flags its client for a reason its figures bear out) at concurrency $0 ($1 requests)",
    async (concurrency, requests) => {
      // Long enough answers that the few ms of HTTP overhead per request stay well inside 3 %.
      const workload = {
        concurrency: [concurrency],
        promptTokens: 150,
        maxTokens: 128,
        requestsPerLevel: requests,
        warmupRequests: 1,
        ignoreEos: true,
      };
      await server.takeTimings();
      // The server's clock, so each sample meets the server's record of its tokens.
      const clock = epochClock();
      const doc = await runSweep({ ...setup("fast", workload), simulated: true, scheduler: clock });
      const level = doc.levels[0] as (typeof doc.levels)[number];
      // A loaded machine may flag the client, and a run whose one level is flagged fails: that alone.
      expect(statusProblems(doc, "complete")).toEqual([]);
      expect(level.requests.ok).toBe(requests);
      // Real time is the point here; what the server did is the truth, however loaded the machine.
      const error = clientError(doc.samples, await server.takeTimings(), clock.originMs as number);
      expect(error.matched).toBe(requests);
      expect(accuracyProblems(level, error)).toEqual([]);
      expect(doc.simulated).toBe(true);
    },
  );

  it("keeps exactly N in flight at the server during the level's body, never more", async () => {
    await server.reset("fast");
    await runSweep({ ...setup("fast", { concurrency: [8], maxTokens: 64, requestsPerLevel: 64, warmupRequests: 0 }) });
    const stats = await server.stats("fast");
    const log = stats.log;
    expect(stats.maxInFlight).toBe(8);
    const firstFull = log.find((e) => e.inFlight === 8)?.tMs as number;
    const lastSend = log.filter((e, i) => i > 0 && e.inFlight > (log[i - 1]?.inFlight ?? 0)).at(-1)?.tMs as number;
    // Between a response's end and the next request's arrival a slot is briefly empty: the client's turnaround.
    expect(stats.meanBetween(firstFull, lastSend)).toBeGreaterThan(0.95 * 8);
  });

  it("spreads a closed loop's first N sends over one request duration: no waves at the server, N in flight through the body", async () => {
    await server.reset("even");
    await server.takeTimings();
    const doc = await runSweep({
      ...setup("even", { concurrency: [8], maxTokens: 64, requestsPerLevel: 64, warmupRequests: 1, ignoreEos: true }),
    });
    const level = doc.levels[0] as (typeof doc.levels)[number];
    // The warm-up told how long a request takes.
    expect(level.closed?.startSpreadMs).toBeGreaterThan(100);
    const arrivals = (await server.takeTimings())
      .map((t) => t.arrivedAtMs)
      .sort((a, b) => a - b)
      .slice(1);
    expect(arrivals).toHaveLength(64);
    // The first 8 left at k x startSpreadMs / 8, the 8th 7/8 of it after the 1st; lock-step sends them
    // within a few ms. (Real time: a busy machine delays timers, so half of it is asked.)
    const spreadMs = level.closed?.startSpreadMs as number;
    expect((arrivals[7] as number) - (arrivals[0] as number)).toBeGreaterThan(spreadMs / 2);
    // Equal answers in lock-step bring all 8 within a few ms, wave after wave. Spread, they come about
    // one per startSpreadMs / 8; a busy machine that holds the client back bunches a few, which a
    // closed loop then keeps, but never all 8 within 5 ms.
    const most = Math.max(...arrivals.map((t) => arrivals.filter((u) => u >= t && u < t + 5).length));
    expect(most).toBeLessThan(8);
    // N in flight through the body, as a valid level must hold it (90 % of N; a busy machine slows the
    // client's turnaround between an end and the next send).
    const stats = await server.stats("even");
    const log = stats.log;
    const firstFull = log.find((e) => e.inFlight === 8)?.tMs as number;
    const lastSend = log.filter((e, i) => i > 0 && e.inFlight > (log[i - 1]?.inFlight ?? 0)).at(-1)?.tMs as number;
    expect(stats.maxInFlight).toBe(8);
    expect(stats.meanBetween(firstFull, lastSend)).toBeGreaterThan(0.9 * 8);
  });

  it("counts tokens from usage with multi-token chunks; without usage, from chunks, flagged", async () => {
    const chunky = await runSweep(
      setup("chunky", { concurrency: [2], maxTokens: 16, requestsPerLevel: 4, warmupRequests: 0 }),
    );
    expect(chunky.samples.every((s) => s.completionTokens === 16 && s.chunks === 4 && s.tokenSource === "usage")).toBe(
      true,
    );
    // The role-only chunk comes at once; TTFT waits for the first content (prefill + 3 steps here).
    expect(chunky.levels[0]?.ttftMs.min).toBeGreaterThan(FAST.prefillBaseMs + 2 * FAST.stepBaseMs);
    const bare = await runSweep(
      setup("nousage", { concurrency: [2], maxTokens: 8, requestsPerLevel: 4, warmupRequests: 0 }),
    );
    expect(bare.samples.every((s) => s.completionTokens === 8 && s.tokenSource === "chunks")).toBe(true);
    expect(bare.levels[0]?.tokensFromChunks).toBe(true);
  });

  it("marks exactly the fallen-back samples route_mismatch, counts them and keeps them out of the figures", async () => {
    const before = await server.fallbacks();
    const doc = await runSweep(
      setup(
        "gw",
        { concurrency: [1, 4], maxTokens: 8, requestsPerLevel: 20, warmupRequests: 0 },
        { gateway: "openrouter", provider: "a" },
      ),
    );
    const mismatched = doc.samples.filter((s) => s.outcome === "route_mismatch");
    expect(mismatched.length).toBe((await server.fallbacks()) - before);
    expect(mismatched.length).toBe(8);
    expect(mismatched.every((s) => s.servedProvider === "b")).toBe(true);
    for (const level of doc.levels) {
      expect(level.requests.routeMismatch).toBe(4);
      expect(level.ttftMs.n).toBe(16);
      // 20 % mismatches: the level cannot be ranked.
      expect(level.valid).toBe(false);
    }
  });

  it("ends partial with the finished levels kept when stopped midway", async () => {
    const stop = new AbortController();
    const doc = await runSweep({
      ...setup("fast", { concurrency: [1, 2, 4], maxTokens: 8, requestsPerLevel: 8, warmupRequests: 0 }),
      onProgress: (p) => {
        if (loadPosition(p.load) === 2 && p.done === 3) stop.abort();
      },
      signal: stop.signal,
    });
    expect(doc.status).toBe("partial");
    expect(doc.partialReason).toMatch(/concurrency 2/);
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1]);
    expect(doc.samples.every((s) => s.level === 1)).toBe(true);
  });
});
