/**
 * @module The deployed stage from the command line: `kneeboard deploy --stage NAME` (what `npm run
 * deploy` runs: `sst deploy`, then the first sweep) and `kneeboard sweep-now --stage NAME`, which puts
 * one sweep message per (target, scenario) on the stage's sweep queue, as the scheduled plan function
 * does, so the operator need not wait for the schedule's next tick.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Config, loadConfig } from "@kneeboard/core/config";
import { ConfigError, UsageError } from "@kneeboard/core/errors";
import { checkSweeps } from "@kneeboard/core/plan";
import { fanOutSlot, slotSweeps } from "@kneeboard/core/scheduled";
import { loadTraces } from "@kneeboard/core/trace";

/** Runs a command with the terminal's stdio and these variables added; resolves to its exit code. */
export type Exec = (command: string, args: string[], env: Record<string, string>) => Promise<number>;

const spawnExec: Exec = (command, args, env) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

const BIN = fileURLToPath(new URL("../bin/kneeboard.js", import.meta.url));

/**
 * `sst shell --stage NAME -- kneeboard sweep-now ...`: sst shell runs a command with every linked
 * resource of the stage in its environment (`SST_RESOURCE_SweepQueue` among them) and the deployer's
 * AWS credentials. The sst of this repository's devDependencies, through npx.
 */
function sweepNowOnStage(stage: string, configFile: string, exec: Exec): Promise<number> {
  return exec(
    "npx",
    ["sst", "shell", "--stage", stage, "--", process.execPath, BIN, "sweep-now", "--config", configFile],
    {},
  );
}

/**
 * The config a stage deploys, checked as `plan` checks it before anything of sst runs: a file that is
 * not there or is invalid, a trace that does not read, a sweep none of whose levels can be valid, each
 * a ConfigError naming the file (exit 2). Keys are SST secrets there, not variables here.
 */
export async function checkDeployedConfig(configFile: string, env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const config = await loadConfig(configFile, { requireKeys: false, env });
  loadTraces(config, configFile);
  const { problems } = checkSweeps(config, config.targets);
  if (problems.length > 0) throw new ConfigError(problems, configFile);
  return config;
}

/** Puts this moment's slot of sweeps on the stage's sweep queue; under `sst shell`, or via it with `stage`. */
export async function sweepNow(options: {
  configFile: string;
  stage?: string;
  io: { out: NodeJS.WritableStream };
  env?: NodeJS.ProcessEnv;
  exec?: Exec;
  now?: number;
}): Promise<number> {
  const env = options.env ?? process.env;
  const linked = env.SST_RESOURCE_SweepQueue;
  if (!linked) {
    if (!options.stage)
      throw new UsageError("sweep-now needs --stage NAME (or to run under `sst shell`, which links the SweepQueue)");
    await checkDeployedConfig(options.configFile, env);
    return sweepNowOnStage(options.stage, options.configFile, options.exec ?? spawnExec);
  }
  // The deployed config is the file deployed from; a target it no longer lists is dead-lettered by sweep.
  const config = await loadConfig(options.configFile, { requireKeys: false, env });
  const { SqsQueue } = await import("@kneeboard/core/aws");
  const queueUrl = (JSON.parse(linked) as { url: string }).url;
  const { slot, planned } = await fanOutSlot(slotSweeps(config), options.now ?? Date.now(), new SqsQueue({ queueUrl }));
  options.io.out.write(
    `queued ${planned} sweep${planned === 1 ? "" : "s"} for slot ${slot} on ${queueUrl}: the site is rebuilt after them (docs/deploying.md, "first sweep").\n`,
  );
  return 0;
}

/**
 * `sst deploy --stage NAME`, then, when it succeeded, the first sweep on that stage; nothing of sst
 * runs before the config has been checked (`checkDeployedConfig`).
 */
export async function deploy(options: {
  stage: string;
  configFile: string;
  io: { out: NodeJS.WritableStream };
  exec?: Exec;
  env?: NodeJS.ProcessEnv;
}): Promise<number> {
  await checkDeployedConfig(options.configFile, options.env);
  const exec = options.exec ?? spawnExec;
  // sst.config.ts reads the config from KNEEBOARD_CONFIG; the sweep is planned from the same file.
  const deployed = await exec("npx", ["sst", "deploy", "--stage", options.stage], {
    KNEEBOARD_CONFIG: options.configFile,
  });
  if (deployed !== 0) return deployed;
  options.io.out.write(`deployed ${options.stage}; starting the first sweep\n`);
  return sweepNowOnStage(options.stage, options.configFile, exec);
}
