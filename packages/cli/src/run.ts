/** @module `kneeboard run` and `kneeboard demo`: sweep targets, store one run document per target, print tables. */
import { resolve } from "node:path";
import { type Config, loadConfig, parseConfig, type Target, workloadFor } from "@kneeboard/core/config";
import { UsageError } from "@kneeboard/core/errors";
import { saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { runSweep } from "@kneeboard/core/sweep";
import { REFERENCE_SLO, referenceModels, referenceTargets, startReferenceServer } from "@kneeboard/reference";
import { progressPrinter, runTable } from "./report.ts";

interface IO {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream;
}

/** Sweeps the chosen targets of a loaded config into the store at dataDir. Exit code 0 when every sweep finished. */
export async function sweepTargets(options: {
  config: Config;
  targets: Target[];
  dataDir: string;
  simulated: boolean;
  env?: Record<string, string | undefined>;
  io: IO;
}): Promise<number> {
  const env = options.env ?? process.env;
  const store = new FolderStore(options.dataDir);
  const index = new StoreRunIndex(store);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const progress = progressPrinter((t) => options.io.out.write(t), options.io.out.isTTY === true);
  try {
    for (const target of options.targets) {
      const doc = await runSweep({
        target,
        workload: workloadFor(options.config, target),
        apiKey: target.apiKeyEnv ? env[target.apiKeyEnv] : undefined,
        simulated: options.simulated,
        signal: stop.signal,
        onProgress: progress,
      });
      const { key } = await saveRun(store, index, doc);
      options.io.out.write(`\n${runTable(doc)}stored ${resolve(options.dataDir, key)}\n`);
      if (stop.signal.aborted) break;
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return 0;
}

/** `kneeboard run --config FILE [--data DIR] [--target ID]...` */
export async function run(options: {
  configFile: string;
  dataDir: string;
  targetIds: string[];
  io: IO;
}): Promise<number> {
  const config = await loadConfig(options.configFile);
  const unknown = options.targetIds.filter((id) => !config.targets.some((t) => t.id === id));
  if (unknown.length) throw new UsageError(`--target names no target of ${options.configFile}: ${unknown.join(", ")}`);
  const targets = options.targetIds.length
    ? config.targets.filter((t) => options.targetIds.includes(t.id))
    : config.targets;
  return sweepTargets({ config, targets, dataDir: options.dataDir, simulated: false, io: options.io });
}

/** The demo workload: the full concurrency ladder, short answers, so the whole demo takes about a minute. */
export const DEMO_WORKLOAD = {
  concurrency: [1, 2, 4, 8, 16, 32],
  promptTokens: 150,
  maxTokens: 32,
  requestsPerLevel: 64,
  warmupRequests: 1,
  temperature: 0,
  requestTimeoutSeconds: 30,
  ignoreEos: true,
};

/** `npm start`: the reference targets, started in-process, swept into the store, then stopped. */
export async function demo(options: { dataDir: string; io: IO }): Promise<number> {
  const began = performance.now();
  const server = await startReferenceServer({ port: 0, models: referenceModels() });
  try {
    // The reference SLO is scaled to simulated speeds, so capacity tells the reference targets apart.
    const workload = { ...DEMO_WORKLOAD, slo: REFERENCE_SLO };
    const config = parseConfig(JSON.stringify({ targets: referenceTargets(server.url), workload }), {
      file: "(reference targets)",
    });
    options.io.out.write(`reference targets (simulated) at ${server.url}\n`);
    const code = await sweepTargets({
      config,
      targets: config.targets,
      dataDir: options.dataDir,
      simulated: true,
      io: options.io,
    });
    options.io.out.write(
      `\ndemo sweep took ${((performance.now() - began) / 1000).toFixed(1)} s; runs are in ${resolve(options.dataDir, "runs")}\n`,
    );
    return code;
  } finally {
    await server.close();
  }
}
