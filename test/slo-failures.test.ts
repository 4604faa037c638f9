/**
 * @module A failed request counts as a miss of the SLO, over real HTTP: a reference route that fails
 * its slowest 4 % (a gateway's 504 at its first-byte timeout) beside an otherwise identical route that
 * serves them late. Failing them must not buy the SLO an honest route misses, nor more goodput.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import type { Level } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { type ReferenceServer, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** About 120 ms a request: long enough that the client's own read delays stay a small share of it. */
const QUICK: StreamProfile = { stepBaseMs: 10, stepPerSeqMs: 0.05, slots: 32, prefillBaseMs: 2, prefillPerTokenMs: 0 };
/** Of every 50 requests: one waits 1.5 s (the p95's rank falls on these), two wait 4 s (the slowest 4 %). */
const PERIOD = 50;
const MEDIUM_MS = 1500;
const LATE_MS = 4000;
const delaysMs = Array.from({ length: PERIOD }, (_, i) => (i === 10 ? MEDIUM_MS : i === 25 || i === 40 ? LATE_MS : 0));
const REQUESTS = 100;
/** The TTFT limit lies between the fast requests and the 1.5 s ones. */
const SLO = { minOutputTokensPerSecond: 1, maxTtftMs: 1000 };

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({
    models: [
      { kind: "model", id: "honest", profile: { ...QUICK, slowTail: { period: PERIOD, delaysMs } } },
      // The same route behind a gateway that gives up where the slowest would have started answering.
      {
        kind: "model",
        id: "failing",
        profile: { ...QUICK, slowTail: { period: PERIOD, delaysMs, giveUpAfterMs: LATE_MS } },
      },
    ],
  });
});
afterAll(() => server.close());

async function level(model: string): Promise<Level> {
  const config = parseConfig(
    JSON.stringify({
      targets: [{ id: model, label: model, baseURL: server.url, model, route: { gateway: "direct" } }],
      workload: { concurrency: [4], requestsPerLevel: REQUESTS, warmupRequests: 0, maxTokens: 12, slo: SLO },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  const doc = await runSweep({ target, workload: workloadFor(config, target) });
  return doc.levels[0] as Level;
}

describe("failed requests and the SLO", () => {
  it("a route that fails its slowest 4 % misses the TTFT SLO its honest twin misses, and its goodput is not higher", async () => {
    // Act: both at once, so the machine's load bends them alike.
    const [honest, failing] = await Promise.all([level("honest"), level("failing")]);
    // What the server did: 4 of the failing route's 100 requests answered 504, the honest route's served late.
    expect(server.tailFailures).toBe(4);
    expect(failing.requests).toMatchObject({ sent: REQUESTS, ok: REQUESTS - 4, httpError: 4 });
    expect(honest.requests).toMatchObject({ sent: REQUESTS, ok: REQUESTS });
    // 4 % failed is under the 5 % a valid level allows: both levels stand.
    // (A loaded machine may flag its own client: that is about the client, not these routes, so only
    // the routes' own codes are held here.)
    const routeCodes = (l: Level) => l.invalid.map((r) => r.code).filter((code) => !code.startsWith("client_"));
    expect([routeCodes(honest), routeCodes(failing)]).toEqual([[], []]);

    // Over its ok requests alone, the failing route's p95 falls among the fast ones, below the
    // 1.5 s requests that carry the honest route's: the figure a route could game.
    expect(failing.ttftMs.p95 as number).toBeLessThan(MEDIUM_MS);
    expect(honest.ttftMs.p95 as number).toBeGreaterThanOrEqual(MEDIUM_MS);
    // Counted with its failures (+Infinity), its p95 falls on the same rank as the honest route's.
    expect(failing.sloFigures).toMatchObject({ requests: REQUESTS, failed: 4 });
    expect(failing.sloFigures?.ttftP95Ms as number).toBeGreaterThanOrEqual(MEDIUM_MS);
    expect(honest.meetsSlo).toBe(false);
    expect(failing.meetsSlo).toBe(false);

    // Goodput: the same fast requests met the SLO on both; the failed ones are charged, not saved.
    const honestGoodput = honest.goodputOutputTokensPerSecond as number;
    const failingGoodput = failing.goodputOutputTokensPerSecond as number;
    expect(honestGoodput).toBeGreaterThan(0);
    expect(failingGoodput).toBeLessThanOrEqual(honestGoodput);
  }, 60_000);
});
