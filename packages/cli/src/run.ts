/** @module `kneeboard run` and `kneeboard demo`: sweep targets, store one run document per (target, scenario), print tables. */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import {
  type Config,
  canaryFor,
  loadConfig,
  parseConfig,
  scenariosOf,
  type Target,
  toolCallsFor,
  workloadFor,
} from "@kneeboard/core/config";
import { ConfigError, UsageError } from "@kneeboard/core/errors";
import { baseUrlWarning, checkSweeps } from "@kneeboard/core/plan";
import type { RunDocument } from "@kneeboard/core/run";
import { type RunIndexEntry, saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { runSweep } from "@kneeboard/core/sweep";
import { loadTraces, type Traces } from "@kneeboard/core/trace";
import { syntheticMooncakeTrace } from "@kneeboard/core/trace/synthetic";
import {
  REFERENCE_LEVEL_SECONDS,
  REFERENCE_RAG_SLO,
  REFERENCE_SLO,
  referenceModels,
  referenceTargets,
  sloppyToolsTarget,
  startReferenceServer,
} from "@kneeboard/reference";
import { progressPrinter, runTable } from "./report.ts";
import { toolCallsReport, verdictsReport } from "./tool-calls.ts";

interface IO {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream;
}

/**
 * What `sweepTargets` did: the runs it stored, in the order it ran them, whether a signal cut it
 * short, and the likely cause of each failed run (no valid level), each cause once.
 */
export interface SweepOutcome {
  stored: RunIndexEntry[];
  interrupted: boolean;
  failures: string[];
}

/**
 * Why a run found no valid level, in words a user can act on, with the endpoint's own sentence where
 * it gave one: a 404 from a base URL whose path misses the API (`baseUrlWarning`) asks for `/v1`, a 404
 * from the API itself is most often a model it does not serve; a 401 or 403 is a key missing or wrong;
 * else the sweep's own stop.
 */
export function likelyCause(doc: RunDocument, apiKeyEnv: string | undefined): string {
  const statuses = new Set(doc.samples.map((s) => s.httpStatus));
  const fromStop = doc.summary.stop?.detail.match(/HTTP (\d{3})/)?.[1];
  if (fromStop) statuses.add(Number(fromStop));
  /** The endpoint's sentence for `status`, quoted after a colon; nothing when it gave none. */
  const said = (status: number) => {
    const error = doc.samples.find((s) => s.httpStatus === status && s.error)?.error;
    const sentence = error?.replace(/^HTTP \d{3}:\s*(\d{3}\s+)?/, "").trim();
    return sentence ? ` ("${sentence}")` : "";
  };
  if (statuses.has(404))
    return baseUrlWarning({ id: doc.targetId, baseURL: doc.baseURL }) === null
      ? `HTTP 404 from ${doc.baseURL}${said(404)}: does the endpoint serve the model ${doc.model}? (its /models lists what it does)`
      : `HTTP 404 from ${doc.baseURL}${said(404)}: is baseURL the API root, ending in /v1 (e.g. https://openrouter.ai/api/v1)?`;
  if (statuses.has(401) || statuses.has(403)) {
    const status = statuses.has(401) ? 401 : 403;
    return apiKeyEnv
      ? `HTTP ${status} from ${doc.baseURL}${said(status)}: the endpoint refused the key; is ${apiKeyEnv} set to a valid key for it?`
      : `HTTP ${status} from ${doc.baseURL}${said(status)}: the endpoint wants a key; set apiKeyEnv to the variable that holds it`;
  }
  return doc.summary.stop?.detail ?? "no level was valid (see each level's invalid reasons above)";
}

/** What a failed run that was stored means, said once with its cause. */
export const FAILED_RUN_KEPT =
  "the failed run is kept in the store as history: it ranks nothing, and the site lists it among the route's runs as failed (a route that fails is news); to keep trials out of a store, give them a --data folder of their own";

/**
 * The order of `repeat` runs of each sweep (a target in a scenario), interleaved (t1 t2 t3 t1 t2 t3 ...)
 * so that drift over the session (a warming machine, a provider's load through the day) hits every one alike.
 */
export function interleave<T>(targets: T[], repeat: number): T[] {
  return Array.from({ length: repeat }, () => targets).flat();
}

/**
 * Sweeps each (target, scenario) of the chosen targets of a loaded config into the store at dataDir,
 * `repeat` runs per pair (default 1), interleaved over all pairs, the reference routes' first. A
 * signal (Ctrl-C) ends the current sweep partial, stores it, and runs nothing more.
 */
export async function sweepTargets(options: {
  config: Config;
  /** The file the config came from, as errors name it. */
  configFile: string;
  targets: Target[];
  dataDir: string;
  simulated: boolean;
  repeat?: number;
  env?: Record<string, string | undefined>;
  /** The windows of the traces the config replays (`loadTraces`), read before anything is sent. */
  traces?: Traces;
  io: IO;
}): Promise<SweepOutcome> {
  const env = options.env ?? process.env;
  checkDataFolder(options.dataDir);
  checkWorkloads(options.config, options.targets, options.configFile, options.io);
  const store = new FolderStore(options.dataDir);
  const index = new StoreRunIndex(store);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const progress = progressPrinter((t) => options.io.out.write(t), options.io.out.isTTY === true);
  const stored: RunIndexEntry[] = [];
  const failures: string[] = [];
  const toolDocs: RunDocument[] = [];
  try {
    // Reference routes first: a run is judged (same model, tool calls) against the reference's runs started before it.
    const ordered = [...options.targets.filter((t) => t.reference), ...options.targets.filter((t) => !t.reference)];
    const pairs = ordered.flatMap((target) =>
      scenariosOf(options.config, target).map((scenario) => ({ target, scenario })),
    );
    for (const { target, scenario } of interleave(pairs, options.repeat ?? 1)) {
      const workload = workloadFor(options.config, target, scenario);
      const doc = await runSweep({
        target,
        workload,
        canary: canaryFor(options.config.targets, target, workload),
        toolCalls: toolCallsFor(workload),
        scenario,
        traces: options.traces,
        apiKey: target.apiKeyEnv ? env[target.apiKeyEnv] : undefined,
        simulated: options.simulated,
        signal: stop.signal,
        onProgress: (p) => progress({ ...p, scenario }),
        // Each finished level is on disk at once (status partial): a killed run loses only the level in flight.
        onLevel: async (partial) => {
          await saveRun(store, index, partial);
        },
        // As deployed: a level whose chunk rate one core cannot carry runs on worker threads.
        threads: "auto",
      });
      const entry = await saveRun(store, index, doc);
      stored.push(entry);
      options.io.out.write(`\n${runTable(doc)}${toolCallsReport(doc)}stored ${resolve(options.dataDir, entry.key)}\n`);
      if (doc.toolCalls) toolDocs.push(doc);
      if (doc.status === "failed") {
        const cause = `${doc.targetId}: ${likelyCause(doc, target.apiKeyEnv)}`;
        if (!failures.includes(cause)) {
          failures.push(cause);
          options.io.err.write(`run failed (no valid level) for ${cause}\n${FAILED_RUN_KEPT}\n`);
        }
      }
      if (stop.signal.aborted) break;
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  // After every sweep: a route's reference may have run after it in this invocation.
  options.io.out.write(await verdictsReport(store, index, toolDocs));
  return { stored, interrupted: stop.signal.aborted, failures };
}

/**
 * Checks, before anything is sent, that `dataDir` is a folder or can be made one: the nearest of
 * it and its parents that exists must be a folder. A file there would fail the first save, after
 * requests were sent (and billed).
 */
export function checkDataFolder(dataDir: string): void {
  let path = resolve(dataDir);
  for (;;) {
    let isFolder: boolean | null = null;
    try {
      isFolder = statSync(path).isDirectory();
    } catch {
      // Not there: its parent decides.
    }
    if (isFolder === true) return;
    if (isFolder === false)
      throw new UsageError(
        path === resolve(dataDir)
          ? `--data names ${path}, a file, not a folder: give a folder for the store (it is made when missing)`
          : `--data ${resolve(dataDir)} cannot be made: ${path} is a file, not a folder`,
      );
    const parent = dirname(path);
    if (parent === path) return;
    path = parent;
  }
}

/**
 * Says before anything is sent where a closed loop's levels cannot be valid and which base URLs likely
 * miss their API (`checkSweeps`, as `plan` does): warnings, or a `ConfigError` naming `configFile`
 * (exit 2) when no level of a sweep can be valid.
 */
function checkWorkloads(config: Config, targets: Target[], configFile: string, io: IO): void {
  const { problems, warnings } = checkSweeps(config, targets);
  for (const warning of warnings) io.err.write(`warning: ${warning}\n`);
  if (problems.length > 0) throw new ConfigError(problems, configFile);
}

/** Exit code of an interrupted sweep: 128 + SIGINT, as shells report it. */
export const INTERRUPTED_EXIT_CODE = 130;

/** `kneeboard run --config FILE [--data DIR] [--target ID]... [--repeat K]` */
export async function run(options: {
  configFile: string;
  dataDir: string;
  targetIds: string[];
  repeat?: number;
  io: IO;
}): Promise<number> {
  const config = await loadConfig(options.configFile);
  // Every trace is read and checked before anything is sent: a bad line is a config error (exit 2).
  const traces = loadTraces(config, options.configFile);
  const unknown = options.targetIds.filter((id) => !config.targets.some((t) => t.id === id));
  if (unknown.length)
    throw new UsageError(
      `--target ${unknown.join(", ")}: ${options.configFile} has no such target; its targets are ${config.targets.map((t) => t.id).join(", ")}`,
    );
  const targets = options.targetIds.length
    ? config.targets.filter((t) => options.targetIds.includes(t.id))
    : config.targets;
  const outcome = await sweepTargets({
    config,
    configFile: options.configFile,
    targets,
    dataDir: options.dataDir,
    simulated: false,
    repeat: options.repeat,
    traces,
    io: options.io,
  });
  // A run that found no valid level measured nothing: the command failed, whatever it stored.
  return outcome.interrupted ? INTERRUPTED_EXIT_CODE : outcome.failures.length > 0 ? 1 : 0;
}

/**
 * The demo's `chat` workload: levels 1 to 16 with short answers (24 tokens) over 150-token prompts.
 * Targets that count requests (the rate-limited provider and gateway beta) run 20 per level: more than
 * N, so every level holds N in flight; 20 at least, so beta's one fallback in 50 requests is at most 1
 * per level (5 %, not over the 5 % that would invalidate it); and no more than the rate-limited
 * provider's burst, so its bucket, refilled by each warm-up, answers no level with 429s. They are the
 * sweep's longest chat runs (level 1 alone sends its 20 one after another, 2 to 2.6 s), so 20, not
 * more. The others run each level for `REFERENCE_LEVEL_SECONDS` (`demoTargets`). Where the demo's
 * time goes, and why each number keeps it under 3 minutes on 2 cores: docs/benchmarks.md#npm-start.
 */
export const DEMO_WORKLOAD = {
  concurrency: [1, 2, 4, 8, 16],
  promptTokens: 150,
  maxTokens: 24,
  requestsPerLevel: 20,
  warmupRequests: 1,
  temperature: 0,
  requestTimeoutSeconds: 30,
  ignoreEos: true,
};

/**
 * The demo's `conversation` scenario: 4-turn conversations over a 120-token system prompt, 40-token
 * questions and 16-token answers (turn 4's prompt is about 330 tokens, half again turn 2's, enough
 * for the cache verdict), at N = 1 and 4, 16 requests a level: 4 conversations, 4 samples a turn.
 */
export const DEMO_CONVERSATION = {
  concurrency: [1, 4],
  promptTokens: 40,
  maxTokens: 16,
  requestsPerLevel: 16,
  conversation: { turns: 4, sharedPrefixTokens: 120 },
};

/**
 * The demo's scenarios: `chat` (the workload itself), `conversation` (`DEMO_CONVERSATION`) and `rag`,
 * 2,000-token prompts (a question over retrieved passages), judged by `REFERENCE_RAG_SLO`: prefill
 * alone is 0.5 to 0.8 s there. Only `DEMO_RAG_TARGETS` are swept in it, at N = 1 (the prefill chart's
 * point) and 4, 0.8 s a level, no warm-up. A level's N first sends leave evenly over one request's
 * time (the level before's, the large model's 0.9 s), so at 0.8 s all 4 leave (the fourth at 0.68 s);
 * at 0.5 s only 3 of 4 (and 9 of 16) did, and those levels were client-limited in every run. Level 16
 * went: the small model's 4 slots queue it for 2.4 s a level.
 */
export const DEMO_SCENARIOS = {
  chat: {},
  rag: {
    promptTokens: 2000,
    concurrency: [1, 4],
    levelDurationSeconds: 0.8,
    warmupRequests: 0,
    slo: REFERENCE_RAG_SLO,
    canary: false,
    toolCalls: false,
  },
  conversation: DEMO_CONVERSATION,
};

/**
 * The demo's canary (the same-model test's samples), on the routes of the models with a reference
 * route (`DEMO_CANARY_TARGETS`) in `chat` alone: 10 completions of each prompt, 16 tokens each (half
 * the default), 32 at once, so it adds about a second a run. The quantized route's distortion shows
 * at that size (docs/methodology.md, same model); at 6 completions a prompt it was missed in 2 of 6
 * demo runs.
 */
export const DEMO_CANARY = { samplesPerPrompt: 10, maxTokens: 16, concurrency: 32 };

/** The targets that run the demo's canary: every closed-loop route of the small and the large model. */
export const DEMO_CANARY_TARGETS = [
  "ref-small-fast",
  "ref-small-priced",
  "ref-small-quantized",
  "ref-large-slow",
  "ref-large-dedicated",
];

/** The targets swept in `rag` too: the small and the large model, whose TTFT the longer prompt sets apart. */
export const DEMO_RAG_TARGETS = ["ref-small-fast", "ref-large-slow"];

/** The targets swept in `conversation` only: the small model's routes with and without a prefix cache. */
export const DEMO_CONVERSATION_TARGETS = ["ref-small-cached", "ref-small-uncached"];

/**
 * The demo's `replay` scenario: the first 20 requests of the project's synthetic Mooncake trace
 * (examples/traces/synthetic-mooncake.jsonl, written from its seed; 11 s of it) at 16 times
 * their pace, no warm-up: a trace replay of shared prefixes on the route with a prefix cache. 20 is
 * the fewest a level of a schedule needs to measure its rate, and each costs: their 41,000 prompt
 * tokens keep the route's 8 slots busy for about 3.7 s a run whatever the pace (the lightest window
 * of 20 of the trace).
 */
export function demoReplay(file: string) {
  return {
    arrival: { mode: "trace" as const, file, format: "mooncake" as const, speedup: [16], limit: 20 },
    warmupRequests: 0,
  };
}

/** The targets swept in `replay` too: the small model's route with a prefix cache, which the trace's shared blocks reward. */
export const DEMO_REPLAY_TARGETS = ["ref-small-cached"];

/**
 * The demo's tool-call phase (docs/methodology.md#tool-calls), per target that runs it, in `chat`
 * alone: the small model's reference route, the route that breaks tool calls, and a faithful route in
 * another server family's stream (llama.cpp's), each of tools-v2's 120 prompts asked twice, 8 at once
 * (the routes have 4 to 8 slots). The verdict's unit is the prompt, met when every answer to it was:
 * a sloppy answer with calls is whole with probability about 0.9^4 = 0.66, a prompt's two answers
 * with about 0.43, so the sloppy route fails about half of the 75 prompts that need a call, far past
 * the 10 lost prompts `worse` needs; the faithful routes fail none. The phases took 5.4 s a demo at
 * tools-v1's sizes, 312 requests (docs/benchmarks.md#npm-start); they now send 720.
 */
export const DEMO_TOOL_CALLS: Record<string, { samplesPerPrompt: number; concurrency: number }> = {
  "ref-small-priced": { samplesPerPrompt: 2, concurrency: 8 },
  "ref-small-sloppy": { samplesPerPrompt: 2, concurrency: 8 },
  "ref-small-fast": { samplesPerPrompt: 2, concurrency: 8 },
};

/** The targets that run the demo's tool-call phase (`DEMO_TOOL_CALLS`). */
export const DEMO_TOOL_CALL_TARGETS = Object.keys(DEMO_TOOL_CALLS);

/**
 * The levels of the route that breaks tool calls (`sloppyToolsTarget`): it is in the demo for its
 * tool calls, and runs the fewest levels that still give both of a route's numbers: N = 1 and 4.
 */
export const DEMO_SLOPPY_LEVELS = { concurrency: [1, 4] };

/**
 * The demo's searched routes (docs/methodology.md#searched-levels): in `chat`, the small fast model's
 * direct route searches its users from 4 to 8 for its capacity at the SLO, where the ladder 1 to 16
 * can only say "4, and not 8". Its SLO is per-stream speed alone (no TTFT limit, the page says so): a
 * level that meets with a TTFT limit must draw 63 requests after its ramp to bound TTFT p95, more than
 * the demo's minutes allow; on speed alone a level is decided on its ramp and two groups of N (18 to 28
 * requests here, at about 36 requests/s: 4 slots), and one near the SLO stops undecided at 32. The open loop keeps its ladder: its rates would each
 * draw 20 sends or more at 16 to 32 a second. What the search spent against the ladder it replaced:
 * docs/benchmarks.md#npm-start.
 */
export const DEMO_SEARCHES: Record<
  string,
  {
    concurrency: {
      search: { from: number; to: number; resolution: number; maxRequestsPerLevel: number; maxRequests: number };
    };
    requestsPerLevel: number;
    slo: { maxTtftMs: null };
  }
> = {
  "ref-small-fast": {
    // Its budget: the default, the ladder 4, 8 (2 x 17), is below the ramps and groups of the four
    // levels it probes here (4, 8, 6, 5: about 100); 160 leaves room for one drawn to its cap.
    concurrency: { search: { from: 4, to: 8, resolution: 0.1, maxRequestsPerLevel: 32, maxRequests: 160 } },
    requestsPerLevel: 16,
    slo: { maxTtftMs: null },
  },
};

/** Targets whose demo levels count requests (see `DEMO_WORKLOAD`); the others run for `REFERENCE_LEVEL_SECONDS`. */
const COUNTED_TARGETS = ["ref-ratelimited", "ref-gateway-beta"];

/**
 * Gateway beta counts its levels for its fallbacks, not its curve: N = 1, 4 and 16 show the curve and
 * the share; 2 and 8 would add about 2 s a run (N = 1 alone sends its 20 one after another).
 */
export const DEMO_BETA_LEVELS = { concurrency: [1, 4, 16] };

/**
 * The reference targets as the demo sweeps them, with the route that breaks tool calls: level lengths
 * and scenarios as above, the canary on `DEMO_CANARY_TARGETS` unless `canary` is false, and the
 * tool-call phase on `DEMO_TOOL_CALL_TARGETS` unless `toolCalls` is false. Each model's reference
 * route comes first: a run is judged against the reference's runs started before it
 * (run-index/judge.ts), so in a round the routes after it are judged against that round's.
 */
export function demoTargets(baseURL: string, canary = true, toolCalls = true) {
  const sloppy = sloppyToolsTarget(baseURL);
  const isReference = (t: object) => ("reference" in t && t.reference === true ? 0 : 1);
  const targets = [
    ...referenceTargets(baseURL),
    { ...sloppy, workload: { ...sloppy.workload, ...DEMO_SLOPPY_LEVELS } },
  ].sort((a, b) => isReference(a) - isReference(b));
  return targets.map((t) => {
    const levels =
      t.workload ??
      DEMO_SEARCHES[t.id] ??
      (t.id === "ref-gateway-beta"
        ? DEMO_BETA_LEVELS
        : COUNTED_TARGETS.includes(t.id)
          ? undefined
          : { levelDurationSeconds: REFERENCE_LEVEL_SECONDS });
    const sampled = {
      ...(canary && DEMO_CANARY_TARGETS.includes(t.id) ? { canary: DEMO_CANARY } : {}),
      ...(toolCalls && t.id in DEMO_TOOL_CALLS ? { toolCalls: DEMO_TOOL_CALLS[t.id] } : {}),
    };
    return {
      ...t,
      workload: levels || Object.keys(sampled).length > 0 ? { ...levels, ...sampled } : undefined,
      scenarios: DEMO_CONVERSATION_TARGETS.includes(t.id)
        ? ["conversation", ...(DEMO_REPLAY_TARGETS.includes(t.id) ? ["replay"] : [])]
        : DEMO_RAG_TARGETS.includes(t.id)
          ? ["chat", "rag"]
          : ["chat"],
    };
  });
}

/**
 * The demo's config (the shape of docs/config.md) for the reference targets at baseURL, replaying
 * `traceFile`; without the canary when `canary` is false, without the tool-call phase when `toolCalls`
 * is false (the demo's rounds before its last).
 */
export function demoConfig(
  baseURL: string,
  traceFile: string,
  options: { canary?: boolean; toolCalls?: boolean } = {},
) {
  // The reference SLO is scaled to simulated speeds, so capacity tells the reference targets apart.
  return {
    targets: demoTargets(baseURL, options.canary ?? true, options.toolCalls ?? true),
    workload: { ...DEMO_WORKLOAD, slo: REFERENCE_SLO, canary: false },
    scenarios: { ...DEMO_SCENARIOS, replay: demoReplay(traceFile) },
  };
}

/** Runs per (reference target, scenario) in the demo: every published figure is then a median of at least 3 runs. */
export const DEMO_REPEAT = 3;

/**
 * `npm start`: the reference targets, started in-process, each (target, scenario) swept `DEMO_REPEAT`
 * times (interleaved) into the store, then stopped. Only the last round samples the canary and the
 * tool calls: the same-model and tool-call verdicts read each route's latest run with the phase
 * (run-index/judge.ts, and the site the newest verdict), so a phase in the earlier rounds would show nowhere.
 */
export async function demo(options: { dataDir: string; io: IO }): Promise<number> {
  const began = performance.now();
  const server = await startReferenceServer({ port: 0, models: referenceModels() });
  // The example trace, written from its seed into a folder of its own: the demo reads no file of the repository.
  const traceDir = mkdtempSync(join(tmpdir(), "kneeboard-demo-"));
  const traceFile = join(traceDir, "synthetic-mooncake.jsonl");
  writeFileSync(traceFile, syntheticMooncakeTrace());
  try {
    const configFile = "(reference targets)";
    const configOf = (lastRound: boolean) =>
      parseConfig(JSON.stringify(demoConfig(server.url, traceFile, { canary: lastRound, toolCalls: lastRound })), {
        file: configFile,
      });
    options.io.out.write(
      `reference targets (simulated) at ${server.url}, ${DEMO_REPEAT} runs of each (target, scenario): chat, rag for ${DEMO_RAG_TARGETS.join(", ")}, conversation for ${DEMO_CONVERSATION_TARGETS.join(", ")}, replay (a trace) for ${DEMO_REPLAY_TARGETS.join(", ")}; the same-model canary and tool calls (${DEMO_TOOL_CALL_TARGETS.join(", ")}) in the last round\n`,
    );
    let stored = 0;
    // Rounds run one after the other as `interleave` orders them: the same order as one sweep of DEMO_REPEAT.
    for (const [canary, repeat] of [
      [false, DEMO_REPEAT - 1],
      [true, 1],
    ] as const) {
      const config = configOf(canary);
      const outcome = await sweepTargets({
        config,
        configFile,
        targets: config.targets,
        dataDir: options.dataDir,
        simulated: true,
        repeat,
        traces: loadTraces(config, configFile),
        io: options.io,
      });
      stored += outcome.stored.length;
      if (outcome.interrupted) return INTERRUPTED_EXIT_CODE;
    }
    options.io.out.write(
      `\ndemo sweep: ${stored} runs in ${((performance.now() - began) / 1000).toFixed(1)} s; runs are in ${resolve(options.dataDir, "runs")}\n`,
    );
    return 0;
  } finally {
    await server.close();
    rmSync(traceDir, { recursive: true, force: true });
  }
}
