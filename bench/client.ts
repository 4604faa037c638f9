/**
 * @module The client's cost and accuracy, printed: kneeboard's streaming client beside a minimal
 * `node:http` client (keep-alive agent, hand SSE line parser) as the yardstick, and kneeboard's TTFT
 * and per-stream figures against the reference server's own record of when it wrote each token;
 * both against a server that keeps its connections alive and one that closes them after every
 * response (as llama.cpp's `llama-server` does).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Agent } from "node:http";
import { availableParallelism } from "node:os";
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import type { Level, Sample } from "@kneeboard/core/run";
import type { Scheduler } from "@kneeboard/core/scheduler";
import { runSweep } from "@kneeboard/core/sweep";
import type { ConnectionBehaviour } from "@kneeboard/reference";
import { type ReferenceProcess, startReferenceProcess } from "@kneeboard/reference/process";
import { type ClientError, clientError, epochClock, ttftToleranceMs } from "@kneeboard/test-support/accuracy";
import { benchCommand } from "./command.ts";
import { minimalLoop } from "./floor.ts";

/** 100 chunks/s per stream, no batching penalty: the load grows with concurrency alone. */
const PROFILE = { stepBaseMs: 10, stepPerSeqMs: 0, slots: 4096, prefillBaseMs: 5, prefillPerTokenMs: 0 };
const CPU_CONCURRENCY = 128;
const CPU_REQUESTS = 256;
const CPU_MAX_TOKENS = 300;
export const ACCURACY_LEVELS = [1, 16, 64, 128, 256];
const ACCURACY_MAX_TOKENS = 200;

/** One level of kneeboard's sweep against the bench target. */
async function kneeboardLevel(
  server: ReferenceProcess,
  concurrency: number,
  requests: number,
  maxTokens: number,
  clock?: Scheduler,
  agent?: Agent,
): Promise<{ level: Level; samples: Sample[] }> {
  const config = parseConfig(
    JSON.stringify({
      targets: [
        { id: "bench", label: "bench (simulated)", baseURL: server.url, model: "bench", route: { gateway: "direct" } },
      ],
      workload: {
        concurrency: [concurrency],
        maxTokens,
        requestsPerLevel: requests,
        warmupRequests: 0,
        promptTokens: 50,
        ignoreEos: true,
      },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  const doc = await runSweep({
    target,
    workload: workloadFor(config, target),
    simulated: true,
    scheduler: clock,
    agent,
  });
  return { level: doc.levels[0] as Level, samples: doc.samples };
}

/** CPU seconds of this process while `work` runs. */
async function cpuSecondsOf<T>(work: () => Promise<T>): Promise<{ value: T; cpuS: number; wallS: number }> {
  const before = process.cpuUsage();
  const began = performance.now();
  const value = await work();
  const cpu = process.cpuUsage(before);
  return { value, cpuS: (cpu.user + cpu.system) / 1e6, wallS: (performance.now() - began) / 1000 };
}

/** Busy CPU work of about `ms` on an idle core: a fixed amount of work, so a loaded machine stretches it. */
function burn(ms: number): void {
  let x = 0;
  for (let i = 0; i < ms * BURN_ITERATIONS_PER_MS; i++) x += Math.sqrt(i);
  if (x < 0) throw new Error("unreachable");
}
const BURN_ITERATIONS_PER_MS = 100_000;

/** A keep-alive agent whose sockets burn `ms` of CPU on every read: a client slowed on purpose, per chunk. */
export class BurningAgent extends Agent {
  constructor(private readonly burnMs: number) {
    super({ keepAlive: true });
  }
  override createConnection(...args: Parameters<Agent["createConnection"]>): ReturnType<Agent["createConnection"]> {
    const socket = super.createConnection(...args);
    socket?.prependListener("data", () => burn(this.burnMs));
    return socket;
  }
}

/** Runs one kneeboard level and matches its samples with the server's record. */
export async function measuredLevel(
  server: ReferenceProcess,
  concurrency: number,
  options: { requests?: number; maxTokens?: number; burnMsPerRead?: number } = {},
): Promise<{ level: Level; error: ClientError }> {
  await server.takeTimings();
  const requests = options.requests ?? Math.max(6, 2 * concurrency);
  const clock = epochClock();
  const agent = options.burnMsPerRead ? new BurningAgent(options.burnMsPerRead) : undefined;
  const { level, samples } = await kneeboardLevel(
    server,
    concurrency,
    requests,
    options.maxTokens ?? ACCURACY_MAX_TOKENS,
    clock,
    agent,
  );
  agent?.destroy();
  return { level, error: clientError(samples, await server.takeTimings(), clock.originMs ?? 0) };
}

const pad = (value: string | number, width: number) => String(value).padStart(width);

/** Both clients' CPU cost over the same streams from `server`. */
async function clientCost(server: ReferenceProcess) {
  // Both warmed first, so neither pays for its JIT in the measured run.
  await minimalLoop(server.url, 16, 32, 50);
  await kneeboardLevel(server, 16, 32, 50);
  const minimal = await cpuSecondsOf(() => minimalLoop(server.url, CPU_CONCURRENCY, CPU_REQUESTS, CPU_MAX_TOKENS));
  const kneeboard = await cpuSecondsOf(() =>
    kneeboardLevel(server, CPU_CONCURRENCY, CPU_REQUESTS, CPU_MAX_TOKENS).then((r) => r.level),
  );
  const per100k = (cpuS: number, chunks: number) => (cpuS / chunks) * 100_000;
  return {
    minimal: {
      per100k: per100k(minimal.cpuS, minimal.value.chunks),
      share: minimal.cpuS / minimal.wallS,
      stale: minimal.value.stale,
    },
    kneeboard: {
      per100k: per100k(kneeboard.cpuS, kneeboard.value.requests.ok * CPU_MAX_TOKENS),
      share: kneeboard.cpuS / kneeboard.wallS,
      stale: kneeboard.value.staleSockets ?? 0,
      ok: kneeboard.value.requests.ok,
      newShare: kneeboard.value.newConnectionShare ?? 0,
      lagP99Ms: kneeboard.value.client.eventLoopLagP99Ms,
    },
  };
}

const CONNECTIONS: { behaviour: ConnectionBehaviour; label: string }[] = [
  { behaviour: "keep-alive", label: "keep-alive server" },
  { behaviour: "close-after-response", label: "server closing after every response (llama.cpp)" },
];

export async function benchClient(log: (line: string) => void): Promise<void> {
  const servers = new Map<ConnectionBehaviour, ReferenceProcess>();
  try {
    for (const { behaviour } of CONNECTIONS)
      servers.set(
        behaviour,
        await startReferenceProcess([{ kind: "model", id: "bench", profile: PROFILE }], { connections: behaviour }),
      );
    const server = servers.get("keep-alive") as ReferenceProcess;
    const chunksPerRun = CPU_REQUESTS * CPU_MAX_TOKENS;
    log(
      `client cost (reference target in another process, ${CPU_CONCURRENCY} streams x 100 chunks/s, ${chunksPerRun} chunks per client)`,
    );
    log(
      "server                                            client              CPU s per 100k chunks  chunks per CPU-second (one core)  CPU share  stale sockets",
    );
    for (const { behaviour, label } of CONNECTIONS) {
      const cost = await clientCost(servers.get(behaviour) as ReferenceProcess);
      const row = (name: string, c: { per100k: number; share: number; stale: number }) =>
        log(
          `${label.padEnd(48)}  ${name.padEnd(18)}  ${pad(c.per100k.toFixed(2), 21)}  ${pad((100_000 / c.per100k).toFixed(0), 32)}  ${pad(c.share.toFixed(2), 9)}  ${pad(c.stale, 13)}`,
        );
      row("minimal node:http", cost.minimal);
      row("kneeboard", cost.kneeboard);
      log(
        `${label.padEnd(48)}  ratio kneeboard / minimal: ${(cost.kneeboard.per100k / cost.minimal.per100k).toFixed(2)} (goal <= 1.3); kneeboard ok ${cost.kneeboard.ok} of ${CPU_REQUESTS}, new connections ${(cost.kneeboard.newShare * 100).toFixed(0)} %, lag p99 ${cost.kneeboard.lagP99Ms.toFixed(1)} ms`,
      );
    }

    // The same client as the command a user runs: a process of its own, its startup subtracted.
    await benchCommand(server, log);

    for (const { behaviour, label } of CONNECTIONS)
      await accuracyTable(servers.get(behaviour) as ReferenceProcess, log, `${label}, on this machine as it is`);
    // The same while other processes compete for the cores: the client waits for a core, and the
    // health check must see it (limited where the error passes the tolerance, not where it stays within).
    const hogs = cpuHogs(LOADED_HOGS_PER_CORE * availableParallelism(), 600);
    try {
      await accuracyTable(
        server,
        log,
        `keep-alive server, with ${hogs.length} busy processes sharing the ${availableParallelism()} cores (${LOADED_HOGS_PER_CORE} per core)`,
      );
    } finally {
      for (const hog of hogs) hog.kill();
    }
  } finally {
    for (const server of servers.values()) await server.close();
  }
}

/** `npm run bench -- command`: the command's figures alone (`benchCommand`), against the keep-alive server. */
export async function benchClientCommand(log: (line: string) => void): Promise<void> {
  const server = await startReferenceProcess([{ kind: "model", id: "bench", profile: PROFILE }]);
  try {
    await benchCommand(server, log);
  } finally {
    await server.close();
  }
}

/** Busy processes per core for the loaded accuracy table. */
const LOADED_HOGS_PER_CORE = 3;

/** `count` processes that spin a core each; each ends by itself after `seconds` if not killed first. */
function cpuHogs(count: number, seconds: number): ChildProcess[] {
  const spin = `const end = Date.now() + ${seconds * 1000}; while (Date.now() < end) {}`;
  return Array.from({ length: count }, () => spawn(process.execPath, ["-e", spin], { stdio: "ignore" }));
}

/** kneeboard's TTFT and per-stream error per N against the server's record, with the health signals and the flag. */
async function accuracyTable(server: ReferenceProcess, log: (line: string) => void, how: string): Promise<void> {
  log(
    `\nkneeboard against the server's record, ${how} (${ACCURACY_MAX_TOKENS} tokens at 100 chunks/s per stream; goal: TTFT within 10 ms + 3 %, per-stream within 3 %)`,
  );
  log(
    "    N  TTFT err ms  tolerance ms  vs server TTFT ms  per-stream err  within  read delay ms  1st-token delay ms  lag p99 ms  loop busy  CPU share  limited  new conn  stale",
  );
  let right = 0;
  for (const concurrency of ACCURACY_LEVELS) {
    const { level, error } = await measuredLevel(server, concurrency);
    const c = level.client;
    if (c.limited !== error.withinTolerance) right++;
    log(
      `${pad(concurrency, 5)}  ${pad(error.ttftErrorMs.toFixed(1), 11)}  ${pad(ttftToleranceMs(error.trueTtftMs).toFixed(1), 12)}  ${pad(error.ttftVsServerMs.toFixed(1), 17)}  ${pad(`${(error.perStreamError * 100).toFixed(2)} %`, 14)}  ${pad(String(error.withinTolerance), 6)}  ${pad((c.readDelayMs ?? 0).toFixed(1), 13)}  ${pad((c.firstTokenReadDelayMs ?? 0).toFixed(1), 18)}  ${pad(c.eventLoopLagP99Ms.toFixed(1), 10)}  ${pad((c.loopUtilization ?? 0).toFixed(2), 9)}  ${pad((c.cpuShare ?? 0).toFixed(2), 9)}  ${pad(String(c.limited), 7)}  ${pad(`${((level.newConnectionShare ?? 0) * 100).toFixed(0)} %`, 8)}  ${pad(level.staleSockets ?? 0, 5)}`,
    );
  }
  log(
    `client.limited right (true exactly where the error is out of tolerance) at ${right} of ${ACCURACY_LEVELS.length} levels`,
  );
}
