/**
 * @module The open loop over real HTTP against the reference server: the server sees Poisson arrivals
 * at the level's rate (gaps with mean 1 / rate, coefficient of variation near 1), sent while earlier
 * requests still stream, on one thread or two. Real time: the arrival gaps include the client's timer
 * and network noise, so they are judged with margins (mean within 10 %, CV within 0.8 to 1.2), over
 * 200 sends, unless the level says its client fell behind the schedule (the exact schedule is tested
 * on a manual scheduler, in packages/core/src/sweep/open-loop.test.ts).
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import type { RunDocument } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { clientFlagProblems } from "@kneeboard/test-support/accuracy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const RATE_PER_SECOND = 50;
const SENDS = 200;
let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({
    models: [
      {
        kind: "model",
        id: "open",
        // 20 tokens at 5 ms a step: each request streams for about 100 ms, about 5 at once at 50 requests/s.
        profile: { stepBaseMs: 5, stepPerSeqMs: 0, slots: 64, prefillBaseMs: 2, prefillPerTokenMs: 0 },
      },
    ],
  });
});
afterAll(() => server.close());

/** One open-loop level of 200 sends on `threads` threads, and the server's arrival times of its sends. */
async function openLevel(
  threads: number,
): Promise<{ level: RunDocument["levels"][number]; doc: RunDocument; arrivals: number[] }> {
  const config = parseConfig(
    JSON.stringify({
      targets: [{ id: "open", label: "open", baseURL: server.url, model: "open", route: { gateway: "direct" } }],
      workload: {
        arrival: { mode: "poisson", ratesPerSecond: [RATE_PER_SECOND], seed: 4 },
        requestsPerLevel: SENDS,
        warmupRequests: 0,
        maxTokens: 20,
      },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  await server.takeTimings();
  const doc = await runSweep({ target, workload: workloadFor(config, target), simulated: true, threads });
  const arrivals = (await server.takeTimings()).map((t) => t.arrivedAtMs).sort((a, b) => a - b);
  return { level: doc.levels[0] as RunDocument["levels"][number], doc, arrivals };
}

/**
 * The arrivals were Poisson at the rate (mean gap within `meanShare` of 1 / rate, CV 0.8 to 1.2), or
 * the level says its client fell behind the schedule: never a bent schedule passed off as Poisson.
 */
function expectPoissonOrFlagged(level: RunDocument["levels"][number], arrivals: number[], meanShare: number): void {
  const gaps = arrivals.slice(1).map((t, i) => t - (arrivals[i] as number));
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / gaps.length);
  const lagged = level.invalid.some((r) => r.code === "client_schedule_lag");
  expect(lagged).toBe((level.open?.scheduleLagMs?.p99 as number) > 10 + (0.03 * 1000) / RATE_PER_SECOND);
  if (lagged) {
    // Flagged for its lag, which the level's own figures bear out: then the gaps are not held to Poisson.
    expect(clientFlagProblems(level)).toEqual([]);
    return;
  }
  expect(Math.abs(mean / (1000 / RATE_PER_SECOND) - 1)).toBeLessThan(meanShare);
  expect(sd / mean).toBeGreaterThan(0.8);
  expect(sd / mean).toBeLessThan(1.2);
}

describe("open loop against the reference server", () => {
  it("sends on a Poisson schedule at the rate, never waiting on completions", async () => {
    const { level, arrivals } = await openLevel(1);
    expect(arrivals).toHaveLength(SENDS);
    expectPoissonOrFlagged(level, arrivals, 0.1);
    expect(level.requests.ok).toBe(SENDS);
    expect(level.load).toEqual({ kind: "open", arrival: "poisson", ratePerSecond: RATE_PER_SECOND });
    // Sends went on while earlier requests streamed: several at once, as independent users would be.
    expect(level.open?.inFlightMax).toBeGreaterThan(2);
    expect(server.engine("open").stats.maxInFlight).toBeGreaterThan(2);
  });

  it("on two threads, sends every index once at the summed rate: two Poisson streams at rate / 2 make one", async () => {
    const { level, doc, arrivals } = await openLevel(2);
    expect(level.client.threads).toBe(2);
    expect(doc.samples.map((s) => s.index)).toEqual(Array.from({ length: SENDS }, (_, i) => i));
    expect(arrivals).toHaveLength(SENDS);
    // A wider bound on the mean: the merged streams' mean gap is random too, two seeds' worth.
    expectPoissonOrFlagged(level, arrivals, 0.15);
  });
});
