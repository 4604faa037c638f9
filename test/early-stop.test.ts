/**
 * @module Rate limits and failures over real HTTP against the reference server: 429 waits, nothing
 * re-sent, invalid levels never ranked, higher levels not run, a level whose first requests fail ends at once.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { loadPosition } from "@kneeboard/core/run";
import { rateLimitWaitMs, runSweep } from "@kneeboard/core/sweep";
import { type ReferenceServer, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const QUICK: StreamProfile = { stepBaseMs: 1, stepPerSeqMs: 0.05, slots: 32, prefillBaseMs: 2, prefillPerTokenMs: 0 };
let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({
    recordPrompts: true,
    models: [
      // Every third request is refused with 429 and retry-after: 1.
      { kind: "model", id: "third", profile: { ...QUICK, refuse: { status: 429, every: 3, retryAfterSeconds: 1 } } },
      // Clean up to 2 in flight; a request arriving while 3 are served gets 429 without retry-after.
      { kind: "model", id: "crowded", profile: { ...QUICK, refuse: { status: 429, whenInFlightAtLeast: 3 } } },
      // Every fifth request fails with 500.
      { kind: "model", id: "flaky", profile: { ...QUICK, refuse: { status: 500, every: 5 } } },
      { kind: "model", id: "clean", profile: QUICK },
      // A token bucket: 20 at once, then 5 a second, which a closed loop of 16 outruns even on a busy
      // machine (at 40 a second, a loaded machine's slower loop stayed under the rate: no 429 at all).
      {
        kind: "model",
        id: "bucket",
        profile: { ...QUICK, stepBaseMs: 3, rateLimit: { requestsPerSecond: 5, burst: 20 } },
      },
      // Every second request refused with a retry-after far past the 30 s cap.
      {
        kind: "model",
        id: "slowdown",
        profile: { ...QUICK, refuse: { status: 429, every: 2, retryAfterSeconds: 3600 } },
      },
    ],
  });
});
afterAll(() => server.close());

function setup(model: string, workload: Record<string, unknown>) {
  const config = parseConfig(
    JSON.stringify({
      targets: [{ id: model, label: model, baseURL: server.url, model, route: { gateway: "direct" } }],
      workload: { maxTokens: 8, ...workload },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  return { target, workload: workloadFor(config, target) };
}

/** The prompts the server received for one run, with how often each came. */
function promptsOf(runId: string): number[] {
  return [...server.prompts.entries()].filter(([p]) => p.includes(`of run ${runId}:`)).map(([, n]) => n);
}

describe("429 waits", () => {
  it("waits retry-after, else 1 s doubling per consecutive 429, at most 30 s", () => {
    expect(rateLimitWaitMs(2, 1)).toBe(2000);
    expect(rateLimitWaitMs(0, 5)).toBe(0);
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => rateLimitWaitMs(null, n))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
    expect(rateLimitWaitMs(3600, 1)).toBe(30_000);
  });
});

describe("sweep against a rate-limited or failing reference target", () => {
  it("counts workers waiting after a 429 as holding their place: the level is invalid for its 429s, not called client limited", async () => {
    const doc = await runSweep({
      ...setup("bucket", { concurrency: [16], requestsPerLevel: 64, warmupRequests: 0, maxTokens: 24 }),
    });
    const level = doc.levels[0] as (typeof doc.levels)[number];
    // Past the burst of 20, most of the rest are refused and their workers wait (retry-after 1 s).
    expect(level.requests.rateLimited).toBeGreaterThan(0.05 * 64);
    expect(level.rateLimitWaitMs).toBeGreaterThan(0);
    const codes = level.invalid.map((r) => r.code);
    expect(codes).toContain("rate_limited");
    // Waiting workers leave the indexes to the others, so the level never idles for want of a sender.
    expect(codes).not.toContain("client_concurrency");
  });

  it("a third of requests refused: level 1 invalid for rate limits, nothing higher run, nothing ranked, nothing sent twice", async () => {
    const doc = await runSweep({
      ...setup("third", { concurrency: [1, 2, 4], requestsPerLevel: 9, warmupRequests: 1 }),
      runId: "third001",
    });
    // The sweep finished, with no valid level: the run failed (issue 31), not complete.
    expect(doc.status).toBe("failed");
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1]);
    const level = doc.levels[0] as (typeof doc.levels)[number];
    // Arrivals 1 (warm-up) to 10: the 3rd, 6th and 9th were refused.
    expect(level.requests).toMatchObject({ sent: 9, ok: 6, rateLimited: 3 });
    expect(level.valid).toBe(false);
    // (A loaded machine may add a client-limited reason; the rate-limit one is always there.)
    expect(level.invalid).toContainEqual({
      code: "rate_limited",
      detail: { count: 3, sent: 9, share: 3 / 9, limitShare: 0.05 },
    });
    // Each 429 was followed by a send after waiting retry-after (1 s): 3 waits of 1 s each. Real time
    // (exact figures: sweep/level.test.ts on a manual scheduler), told from 4 waits with a margin of
    // 1 s for a loaded machine; a timer fires at most 1 ms early.
    expect(level.rateLimitWaitMs).toBeGreaterThanOrEqual(3 * 1000 - 5);
    expect(level.rateLimitWaitMs).toBeLessThan(3 * 1000 + 1000);
    expect(doc.samples.filter((s) => s.outcome === "rate_limited").every((s) => s.retryAfterSeconds === 1)).toBe(true);
    expect(doc.summary.stop).toMatchObject({ load: { kind: "closed", concurrency: 1 }, reason: "rate_limited" });
    expect(doc.summary.stop?.detail).toMatch(/^rate-limited from N=1: 3 of 9 requests got 429/);
    expect(doc.summary.peak).toBeNull();
    expect(doc.summary.singleStream).toBeNull();
    expect(doc.summary.kneeConcurrency).toBeNull();
    // The server saw each request once: 1 warm-up + 9 measured, no prompt twice.
    const seen = promptsOf("third001");
    expect(seen.length).toBe(10);
    expect(seen.every((n) => n === 1)).toBe(true);
  });

  it("clean low levels, rate-limited higher: peak only from the clean levels, the levels above the first invalid one not run", async () => {
    const doc = await runSweep({
      ...setup("crowded", { concurrency: [1, 2, 8, 16], requestsPerLevel: 16, warmupRequests: 0 }),
      runId: "crowd001",
    });
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1, 2, 8]);
    const [one, two, eight] = doc.levels as [
      (typeof doc.levels)[number],
      (typeof doc.levels)[number],
      (typeof doc.levels)[number],
    ];
    expect(one.requests.rateLimited + two.requests.rateLimited).toBe(0);
    expect(eight.requests.rateLimited / eight.requests.sent).toBeGreaterThan(0.05);
    expect(eight.valid).toBe(false);
    expect(eight.invalid.map((r) => r.code)).toContain("rate_limited");
    // Workers waited (no retry-after: 1 s, doubling) instead of burning the level in a 429 storm.
    expect(eight.rateLimitWaitMs).toBeGreaterThanOrEqual(1000 - 5);
    expect(doc.summary.stop).toMatchObject({ load: { kind: "closed", concurrency: 8 }, reason: "rate_limited" });
    // Level 8 keeps its data but gives no peak, even where its aggregate is the highest.
    expect(eight.requests.ok).toBeGreaterThan(0);
    // The peak is the best valid level (1 or 2; none when a loaded machine made both client-limited).
    const valid = doc.levels.filter((l) => l.valid);
    expect(valid.every((l) => loadPosition(l.load) <= 2)).toBe(true);
    const best = valid.sort(
      (a, b) => (b.aggregateOutputTokensPerSecond ?? 0) - (a.aggregateOutputTokensPerSecond ?? 0),
    )[0];
    expect(doc.summary.peak?.load ?? null).toEqual(best?.load ?? null);
    const seen = promptsOf("crowd001");
    expect(seen.length).toBe(one.requests.sent + two.requests.sent + eight.requests.sent);
    expect(seen.every((n) => n === 1)).toBe(true);
  });

  it("a fifth of requests failing: invalid for failures, stop names failures", async () => {
    const doc = await runSweep({
      ...setup("flaky", { concurrency: [1, 2], requestsPerLevel: 10, warmupRequests: 0 }),
      runId: "flaky001",
    });
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1]);
    expect(doc.levels[0]?.requests).toMatchObject({ sent: 10, ok: 8, httpError: 2 });
    expect(doc.levels[0]?.invalid).toContainEqual({
      code: "failures",
      detail: { count: 2, sent: 10, share: 0.2, limitShare: 0.05, httpError: 2, timeout: 0, network: 0, incomplete: 0 },
    });
    expect(doc.summary.stop).toMatchObject({ load: { kind: "closed", concurrency: 1 }, reason: "failures" });
    expect(doc.summary.stop?.detail).toMatch(/^failing from N=1/);
  });

  it("a clean target runs every level with no stop and no wait", async () => {
    const doc = await runSweep(setup("clean", { concurrency: [1, 4], requestsPerLevel: 8, warmupRequests: 1 }));
    expect(doc.levels.map((l) => [loadPosition(l.load), l.requests.ok, l.rateLimitWaitMs])).toEqual([
      [1, 8, 0],
      [4, 8, 0],
    ]);
    expect(doc.summary.stop).toBeNull();
  });

  it("a stop signal ends a 429 wait at once; the run is partial", async () => {
    const stop = new AbortController();
    const doc = await runSweep({
      ...setup("slowdown", { concurrency: [1], requestsPerLevel: 8, warmupRequests: 0 }),
      signal: stop.signal,
      // The 2nd request is refused; its worker then owes a 30 s wait. Stop a moment into it.
      onProgress: (p) => {
        if (p.done === 2) setTimeout(() => stop.abort(), 200);
      },
    });
    expect(doc.status).toBe("partial");
    expect(doc.partialReason).toBe("stopped by signal during concurrency 1");
    // That the wait ends when stopped, not when it runs out, is timed exactly in sweep/level.test.ts
    // on a manual scheduler; here the 30 s wait would outlast this test's 20 s timeout had the stop not ended it.
  }, 20_000);

  it("ends a level at once when its first 4 requests (warm-up included) fail, at any N", async () => {
    const dead = await startReferenceServer({ models: [{ kind: "model", id: "clean", profile: QUICK }] });
    const url = dead.url;
    await dead.close();
    const config = parseConfig(
      JSON.stringify({
        targets: [{ id: "dead", label: "dead", baseURL: url, model: "clean", route: { gateway: "direct" } }],
        workload: { concurrency: [8, 16], requestsPerLevel: 64, warmupRequests: 2, maxTokens: 8 },
      }),
    );
    const target = config.targets[0] as (typeof config.targets)[number];
    const doc = await runSweep({ target, workload: workloadFor(config, target) });
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([8]);
    // 2 warm-up requests failed, then the measured loop sent 8 at once; the level ended after 2 of them failed.
    const level = doc.levels[0] as (typeof doc.levels)[number];
    expect(level.requests.ok).toBe(0);
    expect(level.requests.sent).toBeLessThanOrEqual(8);
    expect(level.invalid).toContainEqual({ code: "ended_early", detail: { firstRequests: 4 } });
    expect(doc.summary.stop?.reason).toBe("unreachable");
    expect(doc.summary.stop?.detail).toMatch(/^unreachable at N=8: no request got an answer.*first error: \S/);
  });
});
