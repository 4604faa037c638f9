/**
 * @module The capacity search's acceptance tests (issue 44, "What must hold") on the route of known
 * capacity: the batch decoder of `@kneeboard/test-support/batch-decoder` (16 sequences decode at once,
 * more queue; a step of 20 + 4 x active ms, +-5 % seeded jitter a step; 32 tokens an answer; one
 * request in 200 cut or ended by an SSE error event, seeded). A closed loop of N users measures
 * 1000 / (20 + 4N) tok/s a stream: 27.8, 25.0 and 22.7 at N = 4, 5 and 6, so at an SLO of 24 tok/s the
 * true capacity is 5. Once over real HTTP on the system clock, the rest on the same decoder in a manual
 * scheduler's exact time (many seeded runs). Counts and decisions are asserted, never wall-clock times.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { kneeIndex } from "@kneeboard/core/metrics";
import { type Level, loadPosition, type RunDocument } from "@kneeboard/core/run";
import { ManualScheduler } from "@kneeboard/core/scheduler/manual";
import { runSweep } from "@kneeboard/core/sweep";
import { type BatchProfile, type DecoderCounts, KNOWN_CAPACITY_ROUTE, perStreamAt } from "@kneeboard/test-support/batch-decoder";
import { batchEndpoint, FAULT_ERRORS } from "@kneeboard/test-support/batch-endpoint";
import { startBatchServer } from "@kneeboard/test-support/batch-server";
import { describe, expect, it } from "vitest";

/** One request in 200 breaks (see the report's note: at one in 50, a probed level decided on 16 requests is invalid on one failure). */
const ROUTE: BatchProfile = { ...KNOWN_CAPACITY_ROUTE, faultEvery: 200 };
const SLO = { minOutputTokensPerSecond: 24 }; // DEV: maxTtftMs null once main has it
const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);
/** The ladder 1, 2, 4, ..., 64 at requestsPerLevel 64: 7 levels of 64 measured requests. */
const LADDER_MEASURED = 7 * 64;

/** A client whose own load never flags a level: the manual scheduler's loop spins by design, and a busy machine must not decide the outcome. */
const calm = () => ({
  firstTokenRead: () => {},
  stop: () => ({
    eventLoopLagP99Ms: 0,
    eventLoopLagMeanMs: 0,
    loopUtilization: 0,
    cpuShare: 0,
    firstTokenReadDelayMs: 0,
  }),
});

function setup(workload: Record<string, unknown>, baseURL = "http://127.0.0.1:9/v1") {
  const config = parseConfig(
    JSON.stringify({
      targets: [{ id: "batch", label: "batch", baseURL, model: "batch", route: { gateway: "direct" } }],
      workload: { requestsPerLevel: 64, warmupRequests: 1, maxTokens: 32, canary: false, ...workload },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  return { target, workload: workloadFor(config, target) };
}

/** A sweep on the decoder in a manual scheduler's time. */
async function inMemory(seed: number, workload: Record<string, unknown>, profile: BatchProfile = ROUTE) {
  const scheduler = new ManualScheduler();
  const endpoint = batchEndpoint({ ...profile, seed }, scheduler);
  const doc = await scheduler.run(
    runSweep({ ...setup(workload), scheduler, client: endpoint, watchHealth: calm, simulated: true }),
  );
  return { doc, counts: endpoint.decoder.counts };
}

/** Measured requests of the sweep's levels (warm-ups not counted). */
function measured(doc: RunDocument): number {
  return doc.levels.reduce((sum, l) => sum + l.requests.sent, 0);
}

/** Failed samples of a document: what the server broke. */
function broken(doc: RunDocument) {
  return doc.samples.filter((s) => s.outcome !== "ok");
}

/**
 * Every stream the decoder broke is a failed sample saying how it broke, but for a broken warm-up (one a
 * level, not a sample); no sample failed that the decoder did not break.
 */
function expectBrokenAccounted(doc: RunDocument, counts: DecoderCounts) {
  const failed = broken(doc);
  const brokenByServer = counts.closed + counts.errored;
  expect(failed.length).toBeLessThanOrEqual(brokenByServer);
  expect(brokenByServer - failed.length).toBeLessThanOrEqual(doc.levels.length);
  expect(failed.filter((s) => s.error === FAULT_ERRORS.close).length).toBeLessThanOrEqual(counts.closed);
  expect(failed.filter((s) => s.error === FAULT_ERRORS.error).length).toBeLessThanOrEqual(counts.errored);
  for (const s of failed) expect([FAULT_ERRORS.close, FAULT_ERRORS.error]).toContain(s.error);
}

function loads(levels: Level[]): number[] {
  return levels.map((l) => loadPosition(l.load));
}

describe("the search on the route of known capacity", () => {
  it("over real HTTP, 1 to 8: capacity 5 (bracket [5, 6]) where the ladder 1, 2, 4, 8 says 4; it spent what the server received", async () => {
    // A few ms for the client's next request to reach the server before a step's sequences are taken.
    const server = await startBatchServer({ ...ROUTE, admitWindowMs: 5, seed: 7 });
    try {
      const doc = await runSweep({
        ...setup({ concurrency: { search: { from: 1, to: 8, resolution: 0.1 } }, slo: SLO }, server.url),
        simulated: true,
        watchHealth: calm,
      });
      const search = doc.summary.search;
      expect(search?.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
      expect(doc.summary.capacity).toBe(5);
      expect(loads(doc.levels)).toEqual([1, 2, 4, 5, 6, 8]);
      // The ladder's 4 is the search's third probe; 8 and 6 miss, 5 meets.
      expect(doc.levels.map((l) => l.probe?.decision)).toEqual(["meets", "meets", "meets", "meets", "misses", "misses"]);
      // What the search spent is what the server received, warm-ups included; what it broke came back as failures saying so.
      const counts = server.decoder.counts;
      expect(search?.requests).toBe(counts.received);
      expect(server.httpRequests()).toBe(counts.received);
      expect(doc.samples).toHaveLength(measured(doc));
      expectBrokenAccounted(doc, counts);
      expect(counts.completed + counts.closed + counts.errored + counts.cancelled).toBe(counts.received);
      console.log(
        `real HTTP 1..8: ${search?.requests} requests sent;`,
        doc.levels.map((l) => `${loadPosition(l.load)}: ${l.probe?.decision} at ${l.probe?.requests}`),
        counts,
      );
    } finally {
      await server.close();
    }
  }, 60_000);
});

/** The 10 seeded searches 1 to 64 at resolution 0.1, run once for the tests that read them. */
let seededSearches: Promise<{ seed: number; doc: RunDocument; counts: DecoderCounts }[]> | null = null;
function searchesFrom1To64() {
  seededSearches ??= (async () => {
    const runs = [];
    for (const seed of SEEDS)
      runs.push({
        seed,
        ...(await inMemory(seed, { concurrency: { search: { from: 1, to: 64, resolution: 0.1 } }, slo: SLO })),
      });
    return runs;
  })();
  return seededSearches;
}

describe("the search on the same decoder in a manual scheduler's time", () => {
  it("10 seeded searches 1 to 64: capacity 5 in at least 9, capacity and knee together under the ladder's 448 measured requests", async () => {
    const runs = (await searchesFrom1To64()).map(({ doc, counts }) => {
      const search = doc.summary.search;
      // Every request the decoder received is in the search's count, warm-ups included.
      expect(search?.requests).toBe(counts.received);
      expectBrokenAccounted(doc, counts);
      return { capacity: search?.capacity, knee: search?.knee, stop: search?.stop.reason, measured: measured(doc), sent: search?.requests };
    });
    console.log(
      "10 seeded searches 1..64:",
      runs.map((r) => `capacity ${r.capacity?.value} (${r.capacity?.status}), knee ${r.knee?.value}, ${r.measured} measured, ${r.sent} sent, ${r.stop}`),
    );
    // At 24 tok/s a level of 5 measures 25.0 +- 0.13 a stream and one of 6 22.7: seven standard errors
    // of one request from the SLO, so a wrong decision at 95 % confidence is rare; 9 of 10 allows one.
    expect(runs.filter((r) => r.capacity?.value === 5 && r.capacity.status === "found").length).toBeGreaterThanOrEqual(9);
    for (const r of runs) expect(r.measured).toBeLessThan(LADDER_MEASURED);
  }, 120_000);

  it("the knee: the searches' knee (to = 64) lies within their resolution of today's knee on a dense ladder 1..32", async () => {
    const { doc: dense } = await inMemory(1, {
      concurrency: Array.from({ length: 32 }, (_, i) => i + 1),
      slo: SLO,
    });
    const denseKnee = dense.summary.kneeConcurrency as number;
    // Today's definition on the dense ladder: the smallest N within 15 % of the highest aggregate.
    const valid = dense.levels.filter((l) => l.valid);
    expect(loadPosition((valid[kneeIndex(valid.map((l) => l.aggregateOutputTokensPerSecond as number)) as number] as Level).load)).toBe(denseKnee);
    expect(dense.summary.capacity).toBe(5);
    const knees = (await searchesFrom1To64()).map(({ doc }) => doc.summary.search?.knee);
    console.log(`dense ladder 1..32: knee ${denseKnee}; searched knees`, knees.map((k) => `${k?.value} [${k?.lo}, ${k?.hi}]`));
    for (const knee of knees) {
      expect(knee?.status).toBe("found");
      // Within the resolution: one user, or 10 % of the knee where that is wider.
      expect(Math.abs((knee?.value as number) - denseKnee)).toBeLessThanOrEqual(Math.max(1, 0.1 * denseKnee));
    }
  }, 120_000);
});
