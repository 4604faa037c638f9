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
  for (const seed of [1, 2]) {
    const dense = await run(seed, { arrival: { mode: "poisson", seed, ratesPerSecond: [2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, 4.5] }, requestsPerLevel: 512, slo: { minOutputTokensPerSecond: 24, maxTtftMs: 3600000 } });
    console.log(Date.now() - t0, show(dense), dense.summary.capacity);
  }
  const out = [];
  for (let seed = 1; seed <= 10; seed++) {
    const d = await run(seed, { arrival: { mode: "poisson", seed, ratesPerSecond: { search: { from: 0.5, to: 16, resolution: 0.1 } } }, slo: { minOutputTokensPerSecond: 24, maxTtftMs: 3600000 } });
    out.push(`${JSON.stringify(d.summary.search?.capacity)} ${d.summary.search?.stop.reason} ${d.summary.search?.requests}`);
  }
  console.log(Date.now() - t0, out);
}, 300000);
it("undecided", async () => {
  for (const [n, from] of [[1, 1], [2, 2], [5, 4]] as const) {
    const out = [];
    for (let seed = 1; seed <= 8; seed++) {
      const d = await run(seed, { concurrency: { search: { from, to: 8, resolution: 0.1 } }, slo: { minOutputTokensPerSecond: 1000 / (20 + 4 * n), maxTtftMs: 3600000 } });
      const l = d.levels.find((x: any) => loadPosition(x.load) === n);
      out.push(`${l?.probe?.decision}@${l?.probe?.requests} ps ${l?.perStream.outputTokensPerSecond.p50?.toFixed(3)} cap ${JSON.stringify(d.summary.search?.capacity)} ${d.summary.search?.stop.reason}`);
    }
    console.log(n, out);
  }
}, 300000);
it("seed1", async () => {
  const d = await run(1, { concurrency: { search: { from: 1, to: 8, resolution: 0.1 } }, slo: { minOutputTokensPerSecond: 1000 / 24, maxTtftMs: 3600000 } });
  console.log(JSON.stringify(d.summary.search), "\n" + show(d), JSON.stringify(d.summary.stop));
}, 300000);
