/**
 * @module What the capacity search's acceptance tests share (test/search-capacity*.test.ts): the route
 * of known capacity as they run it, a config for it, a calm client health watch, a sweep on the
 * in-memory endpoint in a manual scheduler's time, and the check that what the decoder broke came back
 * as failures saying so.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import type { Level, RunDocument } from "@kneeboard/core/run";
import { loadPosition } from "@kneeboard/core/run";
import { ManualScheduler } from "@kneeboard/core/scheduler/manual";
import { runSweep } from "@kneeboard/core/sweep";
import { type BatchProfile, type DecoderCounts, KNOWN_CAPACITY_ROUTE } from "@kneeboard/test-support/batch-decoder";
import { batchEndpoint, FAULT_ERRORS } from "@kneeboard/test-support/batch-endpoint";
import { expect } from "vitest";

/**
 * The route, one request in 200 broken (cut, or an SSE error event). One in 50 is too many for
 * the failure rule (over 5 % a level is invalid and the sweep stops): a ladder level of 64 requests has
 * 4 or more broken at 2 % one time in 25, and 4 of 10 seeded searches stopped on it.
 */
export const ROUTE: BatchProfile = { ...KNOWN_CAPACITY_ROUTE, faultEvery: 200 };

/** The SLO: 24 tok/s a stream, no TTFT limit. */
export const SLO = { minOutputTokensPerSecond: 24, maxTtftMs: null };

/** A client whose own load never flags a level: the manual scheduler's loop spins by design, and a busy machine must not decide the outcome. */
export const calm = () => ({
  firstTokenRead: () => {},
  stop: () => ({
    eventLoopLagP99Ms: 0,
    eventLoopLagMeanMs: 0,
    loopUtilization: 0,
    cpuShare: 0,
    firstTokenReadDelayMs: 0,
  }),
});

/** One target on `baseURL` (the in-memory endpoint ignores it) with the workload given over 64 requests a level, 1 warm-up, 32 tokens. */
export function setup(workload: Record<string, unknown>, baseURL = "http://127.0.0.1:9/v1") {
  const config = parseConfig(
    JSON.stringify({
      targets: [{ id: "batch", label: "batch", baseURL, model: "batch", route: { gateway: "direct" } }],
      workload: { requestsPerLevel: 64, warmupRequests: 1, maxTokens: 32, canary: false, ...workload },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  return { config, target, workload: workloadFor(config, target) };
}

/** A sweep on the decoder (seeded) in a manual scheduler's time, and the decoder's counts. */
export async function inMemory(seed: number, workload: Record<string, unknown>, profile: BatchProfile = ROUTE) {
  const scheduler = new ManualScheduler();
  const endpoint = batchEndpoint({ ...profile, seed }, scheduler);
  const doc = await scheduler.run(
    runSweep({ ...setup(workload), scheduler, client: endpoint, watchHealth: calm, simulated: true }),
  );
  return { doc, counts: endpoint.decoder.counts };
}

/** Measured requests of the sweep's levels (warm-ups not counted). */
export function measured(doc: RunDocument): number {
  return doc.levels.reduce((sum, l) => sum + l.requests.sent, 0);
}

/** The loads of levels, in their order. */
export function loads(levels: readonly Level[]): number[] {
  return levels.map((l) => loadPosition(l.load));
}

/**
 * Every stream the decoder broke is a failed sample saying how it broke, but for a broken warm-up (one a
 * level, which is no sample); no sample failed that the decoder did not break.
 */
export function expectBrokenAccounted(doc: RunDocument, counts: DecoderCounts): void {
  const failed = doc.samples.filter((s) => s.outcome !== "ok");
  const brokenByServer = counts.closed + counts.errored;
  expect(failed.length).toBeLessThanOrEqual(brokenByServer);
  expect(brokenByServer - failed.length).toBeLessThanOrEqual(doc.levels.length);
  expect(failed.filter((s) => s.error === FAULT_ERRORS.close).length).toBeLessThanOrEqual(counts.closed);
  expect(failed.filter((s) => s.error === FAULT_ERRORS.error).length).toBeLessThanOrEqual(counts.errored);
  for (const s of failed) expect([FAULT_ERRORS.close, FAULT_ERRORS.error]).toContain(s.error);
  // Each request ended one way: answered, broken, or left by the client.
  expect(counts.completed + counts.closed + counts.errored + counts.cancelled).toBe(counts.received);
}
