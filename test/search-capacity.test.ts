import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { loadPosition } from "@kneeboard/core/run";
import { ManualScheduler } from "@kneeboard/core/scheduler/manual";
import { runSweep } from "@kneeboard/core/sweep";
import { KNOWN_CAPACITY_ROUTE } from "@kneeboard/test-support/batch-decoder";
import { batchEndpoint } from "@kneeboard/test-support/batch-endpoint";
import { describe, expect, it } from "vitest";

const calm = () => ({
  firstTokenRead: () => {},
  stop: () => ({ eventLoopLagP99Ms: 0, eventLoopLagMeanMs: 0, loopUtilization: 0, cpuShare: 0, firstTokenReadDelayMs: 0 }),
});

function setup(workload: Record<string, unknown>) {
  const config = parseConfig(
    JSON.stringify({
      targets: [{ id: "batch", label: "batch", baseURL: "http://127.0.0.1:9/v1", model: "batch", route: { gateway: "direct" } }],
      workload: { requestsPerLevel: 64, warmupRequests: 1, maxTokens: 32, canary: false, ...workload },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  return { target, workload: workloadFor(config, target) };
}

async function manual(seed: number, workload: Record<string, unknown>) {
  const scheduler = new ManualScheduler();
  const endpoint = batchEndpoint({ ...KNOWN_CAPACITY_ROUTE, seed }, scheduler);
  const doc = await scheduler.run(runSweep({ ...setup(workload), scheduler, client: endpoint, watchHealth: calm, simulated: true }));
  return { doc, counts: endpoint.decoder.counts };
}

describe("explore", () => {
  it.each([50, 200, 1000])("seeds faultEvery %i", async (faultEvery) => {
    const t0 = Date.now();
    const out = [];
    for (let seed = 1; seed <= 10; seed++) {
      const scheduler = new ManualScheduler();
      const endpoint = batchEndpoint({ ...KNOWN_CAPACITY_ROUTE, seed, faultEvery }, scheduler);
      const doc = await scheduler.run(runSweep({ ...setup({ concurrency: { search: { from: 1, to: 64, resolution: 0.1 } }, slo: { minOutputTokensPerSecond: 24 } }), scheduler, client: endpoint, watchHealth: calm, simulated: true }));
      const s = doc.summary.search;
      out.push(`${s?.capacity.value}/${s?.capacity.status} knee ${s?.knee.value} ${s?.stop.reason} ${s?.requests}`);
    }
    console.log(faultEvery, Date.now() - t0, "ms", out);
  }, 300_000);
});
