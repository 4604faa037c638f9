/**
 * @module No listener leak on the level's shared AbortSignal: a sweep at 128 streams against the
 * reference server (its start spread puts 128 sleeps, then 128 requests, on one signal) emits no
 * `MaxListenersExceededWarning` (issue 31: one at every level above 10 streams).
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { loadPosition } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { startReferenceServer } from "@kneeboard/reference";
import { expect, it } from "vitest";

it("a sweep at 4 and 128 streams warns of no listeners", async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  const server = await startReferenceServer({
    models: [
      {
        kind: "model",
        id: "m",
        profile: { stepBaseMs: 4, stepPerSeqMs: 0, slots: 256, prefillBaseMs: 1, prefillPerTokenMs: 0 },
      },
    ],
  });
  try {
    const config = parseConfig(
      JSON.stringify({
        targets: [{ id: "t", label: "t", baseURL: server.url, model: "m", route: { gateway: "direct" } }],
        workload: { concurrency: [4, 128], requestsPerLevel: 256, warmupRequests: 1, maxTokens: 4, promptTokens: 10 },
      }),
    );
    const target = config.targets[0] as (typeof config.targets)[number];
    const doc = await runSweep({ target, workload: workloadFor(config, target), simulated: true, threads: 1 });
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([4, 128]);
    expect(doc.samples.filter((s) => s.outcome === "ok")).toHaveLength(512);
    expect(server.counts().requests).toBe(512 + 2);
    // A warning is emitted on the next tick: let it come.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.includes("MaxListeners"))).toEqual([]);
  } finally {
    process.off("warning", onWarning);
    await server.close();
  }
});
