/**
 * @module An open-loop level's rate must be measured before it counts: against the reference
 * server, rates [4, 8] for half a second each send a handful of requests (issue 31: "sustains 8
 * req/s at the SLO" from one request); such levels are invalid with a code, and capacity comes from
 * valid levels only. A level with enough sends is judged against its Poisson margin.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { MIN_OPEN_LOOP_REQUESTS, openRateMarginPerSecond } from "@kneeboard/core/metrics";
import { runSweep } from "@kneeboard/core/sweep";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({
    models: [
      {
        kind: "model",
        id: "m",
        profile: { stepBaseMs: 5, stepPerSeqMs: 0, slots: 64, prefillBaseMs: 1, prefillPerTokenMs: 0 },
      },
    ],
  });
});
afterAll(() => server.close());

async function openSweep(workload: Record<string, unknown>) {
  const config = parseConfig(
    JSON.stringify({
      targets: [{ id: "open", label: "open", baseURL: server.url, model: "m", route: { gateway: "direct" } }],
      workload: { warmupRequests: 0, maxTokens: 4, promptTokens: 10, ...workload },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  const before = server.counts().requests;
  const doc = await runSweep({ target, workload: workloadFor(config, target), simulated: true, threads: 1 });
  return { doc, received: server.counts().requests - before };
}

describe("open-loop validity", () => {
  it("rates [4, 8] for 0.5 s: too few requests, both levels invalid with a code, no capacity", async () => {
    const { doc, received } = await openSweep({
      arrival: { mode: "poisson", ratesPerSecond: [4, 8], seed: 1 },
      levelDurationSeconds: 0.5,
    });
    expect(received).toBe(doc.samples.length);
    expect(doc.levels).toHaveLength(2);
    for (const level of doc.levels) {
      expect(level.requests.sent).toBeLessThan(MIN_OPEN_LOOP_REQUESTS);
      expect(level.valid).toBe(false);
      expect(level.invalid).toContainEqual({
        code: "open_too_few_requests",
        detail: { requests: level.requests.sent, minimum: MIN_OPEN_LOOP_REQUESTS },
      });
    }
    expect(doc.summary.capacityRequestsPerSecond).toBeNull();
    expect(doc.status).toBe("failed");
  });

  it("40 requests at 20/s: enough to measure; off its Poisson margin exactly when the code says so", async () => {
    const { doc } = await openSweep({
      arrival: { mode: "poisson", ratesPerSecond: [20], seed: 3 },
      requestsPerLevel: 40,
    });
    const level = doc.levels[0] as (typeof doc.levels)[number];
    const codes = level.invalid.map((r) => r.code);
    expect(codes).not.toContain("open_too_few_requests");
    const margin = openRateMarginPerSecond(20, 40);
    const achieved = level.open?.achievedRatePerSecond ?? null;
    const off = achieved === null || Math.abs(achieved - 20) > margin;
    expect(codes.includes("open_rate_off")).toBe(off);
  });
});
