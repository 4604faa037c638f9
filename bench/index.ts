/**
 * @module `npm run bench`: performance figures, printed, never asserted (client capacity, the demo, regression detection, the site build). One kneeboard
 * process (this one) drives a reference target in another process; then the `npm start` sweep is timed.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { runSweep } from "@kneeboard/core/sweep";
import { startReferenceProcess } from "@kneeboard/reference/process";
import { benchAws } from "./aws.ts";
import { benchRegress } from "./regress.ts";
import { benchSite } from "./site.ts";

// 100 chunks/s per stream, no batching penalty: the load grows with concurrency alone.
const PROFILE = { stepBaseMs: 10, stepPerSeqMs: 0, slots: 4096, prefillBaseMs: 5, prefillPerTokenMs: 0 };
const LEVELS = [16, 64, 128, 256, 384];

async function clientCapacity(): Promise<void> {
  const server = await startReferenceProcess([{ kind: "model", id: "bench", profile: PROFILE }]);
  try {
    console.log("client capacity (reference target in another process, 100 chunks/s per stream)");
    console.log("concurrency  chunks/s  lag p99 ms  achieved  CPU ms per 100k chunks  limited");
    for (const concurrency of LEVELS) {
      const config = parseConfig(
        JSON.stringify({
          targets: [
            {
              id: "bench",
              label: "bench (simulated)",
              baseURL: server.url,
              model: "bench",
              route: { gateway: "direct" },
            },
          ],
          workload: {
            concurrency: [concurrency],
            maxTokens: 300,
            requestsPerLevel: concurrency * 2,
            warmupRequests: 0,
            promptTokens: 50,
          },
        }),
      );
      const target = config.targets[0] as (typeof config.targets)[number];
      const cpuBefore = process.cpuUsage();
      const doc = await runSweep({ target, workload: workloadFor(config, target), simulated: true });
      const cpu = process.cpuUsage(cpuBefore);
      const level = doc.levels[0];
      if (!level) continue;
      const chunks = doc.samples.reduce((sum, s) => sum + s.chunks, 0);
      const chunkRate = chunks / (level.wallTimeMs / 1000);
      const cpuPer100k = ((cpu.user + cpu.system) / 1000 / chunks) * 100_000;
      console.log(
        `${String(concurrency).padStart(11)}  ${chunkRate.toFixed(0).padStart(8)}  ${level.client.eventLoopLagP99Ms.toFixed(1).padStart(10)}  ${level.achievedConcurrency.toFixed(1).padStart(8)}  ${cpuPer100k.toFixed(0).padStart(22)}  ${level.client.limited}`,
      );
    }
  } finally {
    await server.close();
  }
}

async function demoRunTime(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "kneeboard-bench-"));
  const bin = new URL("../packages/cli/bin/kneeboard.js", import.meta.url).pathname;
  const began = performance.now();
  await promisify(execFile)(process.execPath, [bin, "demo", "--data", data, "--out", join(data, "site")], {
    maxBuffer: 64 * 1024 * 1024,
  });
  console.log(
    `\nnpm start sweep (5 reference targets x 6 levels x 64 requests): ${((performance.now() - began) / 1000).toFixed(1)} s`,
  );
}

await clientCapacity();
await demoRunTime();
benchRegress(console.log);
await benchSite(console.log);
await benchAws(console.log);
