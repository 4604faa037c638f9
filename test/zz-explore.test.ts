import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { loadPosition } from "@kneeboard/core/run";
import { ManualScheduler } from "@kneeboard/core/scheduler/manual";
import { runSweep } from "@kneeboard/core/sweep";
import { KNOWN_CAPACITY_ROUTE } from "@kneeboard/test-support/batch-decoder";
import { batchEndpoint } from "@kneeboard/test-support/batch-endpoint";
import { it } from "vitest";
const calm = () => ({ firstTokenRead: () => {}, stop: () => ({ eventLoopLagP99Ms: 0, eventLoopLagMeanMs: 0, loopUtilization: 0, cpuShare: 0, firstTokenReadDelayMs: 0 }) });
async function run(seed: number, w: Record<string, unknown>) {
  const config = parseConfig(JSON.stringify({ targets: [{ id: "b", label: "b", baseURL: "http://127.0.0.1:9/v1", model: "b", route: { gateway: "direct" } }], workload: { requestsPerLevel: 64, warmupRequests: 1, maxTokens: 32, canary: false, ...w } }));
  const target = config.targets[0]!;
  const scheduler = new ManualScheduler();
  const endpoint = batchEndpoint({ ...KNOWN_CAPACITY_ROUTE, faultEvery: 200, seed }, scheduler);
  return scheduler.run(runSweep({ target, workload: workloadFor(config, target), scheduler, client: endpoint, watchHealth: calm, simulated: true }));
}
const show = (d: any) => d.levels.map((l: any) => `${loadPosition(l.load)}#${l.probe?.order}: ps ${l.perStream.outputTokensPerSecond.p50?.toFixed(2)} agg ${l.aggregateOutputTokensPerSecond?.toFixed(1)} ttft ${l.ttftMs?.p50?.toFixed(0)} ${l.probe?.decision}@${l.requests.sent} v=${l.valid} ${l.invalid.map((x: any) => x.code)}`).join("\n");
it("open", async () => {
  const t0 = Date.now();
  const dense = await run(1, { arrival: { mode: "poisson", ratesPerSecond: [3, 3.5, 4, 4.5, 5, 5.5, 6] }, requestsPerLevel: 256, slo: { minOutputTokensPerSecond: 24 } });
  console.log(Date.now() - t0, show(dense), dense.summary.capacity);
  for (const seed of [1, 2, 3]) {
    const d = await run(seed, { arrival: { mode: "poisson", seed, ratesPerSecond: { search: { from: 0.5, to: 16, resolution: 0.1 } } }, slo: { minOutputTokensPerSecond: 24 } });
    console.log(seed, Date.now() - t0, JSON.stringify(d.summary.search?.capacity), d.summary.search?.stop.reason, "\n" + show(d));
  }
}, 300000);
it("oversat", async () => {
  const t0 = Date.now();
  const d = await run(1, { concurrency: { search: { from: 1, to: 256, resolution: 0.1 } }, slo: { minOutputTokensPerSecond: 0.5, maxTtftMs: 3600000 } });
  console.log(Date.now() - t0, JSON.stringify(d.summary.search), "\n" + show(d));
}, 300000);
it("undecided", async () => {
  const t0 = Date.now();
  for (const seed of [1, 2, 3]) {
  const d = await run(seed, { concurrency: { search: { from: 1, to: 8, resolution: 0.1 } }, slo: { minOutputTokensPerSecond: 25, maxTtftMs: 3600000 } });
  console.log(Date.now() - t0, JSON.stringify(d.summary.search), "\n" + show(d));
  }
}, 300000);
