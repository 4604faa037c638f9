/**
 * @module The sweep: the levels of one target, low to high (each run by ./level.ts), into a run
 * document. A stop (signal or deadline) ends the sweep; the levels finished by then are kept, the run
 * is partial. A level invalid because of rate limits or failures is the last one run (`summary.stop`).
 */
import { randomBytes } from "node:crypto";
import type { Agent } from "node:http";
import { availableParallelism, hostname } from "node:os";
import type { HealthWatch } from "../client/health.ts";
import { type Endpoint, StreamingClient } from "../client/index.ts";
import { type CanarySettings, modelKeyOf, type Target, type ToolCallSettings, type Workload } from "../config/index.ts";
import { concurrencyOf, documentLoad, levelSearch, replayedWindow } from "../kinds/index.ts";
import { levelStop, summarizeRun } from "../metrics/index.ts";
import {
  DEFAULT_PLAN_ASSUMPTIONS,
  expectedRequestSeconds,
  type LevelLoad,
  type LevelPlan,
  loadChunksPerSecond,
  loadThreadBound,
  planLevels,
  threadsForChunkRate,
} from "../plan/index.ts";
import type { Canary, Level, Load, RunDocument, Sample, Stop, ToolCalls } from "../run/index.ts";
import { type Scheduler, systemScheduler } from "../scheduler/index.ts";
import { searchPlan } from "../search/bounds.ts";
import { LoadSearch } from "../search/machine.ts";
import { runToolCalls } from "../tool-calls/phase.ts";
import { type Traces, traceRecord } from "../trace/index.ts";
import { PromptSizer } from "../workload/index.ts";
import { runCanary } from "./canary.ts";
import { type RequestSender, runLevel, Stopped } from "./level.ts";
import { byLoad, byOrder, searchedSummary } from "./search.ts";
import { type LevelSource, ladderSource, type NextLevel, SearchSource, type SweepSearch } from "./sources.ts";
import { type ThreadHost, workerThreads } from "./threads.ts";

export type { DriveLoop, DriveRecord, DriveSpec, LevelDriver } from "../drive/driver.ts";
export { RATE_LIMIT_FIRST_WAIT_MS, RATE_LIMIT_MAX_WAIT_MS, rateLimitWaitMs } from "../drive/loop.ts";
export { type CanaryOptions, runCanary } from "./canary.ts";
export type { RequestSender } from "./request.ts";
export { toSample } from "./sample.ts";
export type { ThreadEnv } from "./thread.ts";
export { inProcessThreads, type ThreadHost, threaded } from "./threads.ts";

/** The harness version written into every run document. */
export const HARNESS_VERSION = "0.1.0";

/** Live progress of a sweep, for a TTY line or a log line. */
export interface SweepProgress {
  targetId: string;
  /** The level's number in its sweep, 1-based: its run document's `levels[].level`. */
  level: number;
  /** What the level offers, as its run document will record it (`levels[].load`). */
  load: Load;
  levelIndex: number;
  levelCount: number;
  /** Measured requests finished in this level. */
  done: number;
  /** Measured requests the level will send; null for a timed level. */
  total: number | null;
  /** Output tokens of ok samples in this level / elapsed level time, tok/s. */
  liveTokensPerSecond: number;
  /** True once the level has finished. */
  levelDone: boolean;
  /** Worker threads the level's measured requests run on (1: this thread). */
  threads: number;
}

export interface SweepOptions {
  target: Target;
  workload: Workload;
  /** The scenario the workload is (default `chat`), written into the run document. */
  scenario?: string;
  /** The windows of the traces the config replays (`loadTraces`); needed when the workload's arrival is a trace. */
  traces?: Traces;
  /** The key read from `target.apiKeyEnv`; never stored or logged. */
  apiKey?: string;
  /** Defaults to a random id; the AWS deployment derives it from the schedule slot. */
  runId?: string;
  /** Marks the run as produced by a simulated reference target. */
  simulated?: boolean;
  /** Where the sweep's times, timers and 429 waits come from (default: the system scheduler). */
  scheduler?: Scheduler;
  /**
   * What sends each request (default: a StreamingClient for the target, on `scheduler`). A stand-in
   * lets a test run the sweep on a manual scheduler; levels then run on this thread.
   */
  client?: RequestSender;
  /** The keep-alive agent requests go through (default: one per sweep). */
  agent?: Agent;
  /** PEM CA the target's `https:` certificate must chain to, in place of Node's default CAs (tests); worker threads get it too. */
  ca?: string;
  /**
   * Watches the client process's own load through each measured loop (default `watchClientHealth`,
   * the real event loop); a test on a manual scheduler gives a calm one, as its loop spins by design.
   */
  watchHealth?: () => HealthWatch;
  /** Stops the sweep between requests; finished levels are kept and the run is partial. */
  signal?: AbortSignal;
  /** Scheduler ms at which to stop the way `signal` does. */
  deadlineMs?: number;
  /** Index of the first level to run (a continued sweep); earlier levels are taken from `previous`. */
  startLevelIndex?: number;
  previous?: Pick<RunDocument, "levels" | "samples" | "startedAt" | "runId">;
  onProgress?: (progress: SweepProgress) => void;
  /** Called after each finished level with the document so far (status partial), to save progress. */
  onLevel?: (partial: RunDocument) => Promise<void> | void;
  /**
   * Worker threads a level's measured requests run on (default 1: all on this thread). "auto" gives
   * each level what its expected chunk rate needs (`threadsForChunkRate`: N x the per-stream rate of
   * the level before, or for the first the target's expectedOutputTokensPerSecond, else the plan's
   * default, against one core's capacity, capped by the available cores; an open loop's level by its
   * rate x maxTokens); a number forces that many (at most N for a closed loop). More than one needs a
   * scheduler a thread can rebuild (`Scheduler.threadable`) and the default client, or a `threadHost`:
   * otherwise every level runs on this thread. On T threads an open loop sends T independent Poisson
   * streams at rate / T each (together a Poisson stream at the rate).
   */
  threads?: number | "auto";
  /**
   * Where a level's threads run (default: worker threads, when the scheduler is threadable and the
   * client the default). A test passes `inProcessThreads` with its manual scheduler and stand-in
   * client, to run threaded levels in exact numbers.
   */
  threadHost?: ThreadHost;
  /**
   * The canary phase after the levels (`canaryFor`: as the workload sets it, else on where the model
   * has a reference route to judge it against); absent or null: none. It runs when some level had an
   * answer (ok request) and the sweep was not stopped; a stop ends it where it is (the levels stand,
   * the canary says why it stopped).
   */
  canary?: CanarySettings | null;
  /**
   * The tool-call phase after the levels and the canary (`toolCallsFor`: on where the workload sets
   * `toolCalls`); absent or null: none. It runs, as the canary does, when some level had an answer and
   * the sweep was not stopped; a stop ends it where it is.
   */
  toolCalls?: ToolCallSettings | null;
}

/** A fresh run id: 8 hex characters. */
export function newRunId(): string {
  return randomBytes(4).toString("hex");
}

/** Runs the whole sweep of one target and returns its run document. Request failures are data. */
export async function runSweep(options: SweepOptions): Promise<RunDocument> {
  const sweep = new Sweep(options);
  const stopped = await sweep.walk(sweep.source());
  if (stopped) return stopped;
  // A sweep that finished with no valid level measured nothing it can rank: it failed.
  const measured = sweep.levels.some((l) => l.valid);
  await sweep.runPhasesAfterLevels();
  return sweep.document(measured ? "complete" : "failed");
}

/**
 * One sweep as it runs: its clock, client and plan, the levels and samples kept so far, and why it
 * stopped. Its one loop (`walk`) runs the levels its source gives (a ladder's in order, a search's as
 * its state machine asks), its phases follow them, and `document` assembles the run document from what
 * it holds.
 */
class Sweep {
  readonly options: SweepOptions;
  readonly target: Target;
  readonly workload: Workload;
  readonly clock: Scheduler;
  readonly runId: string;
  readonly startedAt: string;
  /** Scheduler ms the run's samples count from. */
  readonly origin: number;
  readonly endpoint: Endpoint;
  readonly client: RequestSender;
  /** What the endpoint counts as a prompt token, learned across the levels (its warm-ups first). */
  readonly sizer = new PromptSizer();
  readonly levels: Level[];
  readonly samples: Sample[];
  partialReason: string | null = null;
  /** Declared by the caller, or announced by the server's responses (the reference server's header). */
  simulated: boolean;
  /** Why the sweep runs no further level (`levelStop`); null while it goes on. */
  stop: Stop | null = null;
  /** A searched sweep's plan and state machine; null for a ladder. */
  readonly search: SweepSearch | null;
  canary: Canary | undefined;
  toolCalls: ToolCalls | null = null;
  /** One request's expected duration at the plan's rates, seconds: what a level is planned at. */
  readonly requestSeconds: number;
  readonly plan: LevelPlan[];
  readonly replayed: ReturnType<typeof replayedWindow>;
  readonly threadHost: ThreadHost | undefined;

  constructor(options: SweepOptions) {
    this.options = options;
    const { target, workload } = options;
    this.target = target;
    this.workload = workload;
    const clock = options.scheduler ?? systemScheduler;
    this.clock = clock;
    this.runId = options.previous?.runId ?? options.runId ?? newRunId();
    this.startedAt = options.previous?.startedAt ?? new Date().toISOString();
    // A continued run's samples keep counting from the run's start (or at least after the earlier
    // samples, when the clock is not wall time), not from this invocation's.
    const resumedAtMs = options.previous
      ? options.previous.samples.reduce(
          (m, s) => Math.max(m, s.startMs + (s.e2eMs ?? 0)),
          Date.now() - Date.parse(this.startedAt),
        )
      : 0;
    this.origin = clock.now() - resumedAtMs;
    this.endpoint = {
      baseURL: target.baseURL,
      apiKey: options.apiKey,
      model: target.model,
      route: target.route,
      ...(options.ca ? { ca: options.ca } : {}),
    };
    this.client = options.client ?? new StreamingClient(this.endpoint, { scheduler: clock, agent: options.agent });
    this.levels = [...(options.previous?.levels ?? [])];
    this.samples = [...(options.previous?.samples ?? [])];
    this.simulated = options.simulated === true;
    // A continued sweep whose earlier levels already called for a stop runs nothing more.
    for (const l of this.levels) this.stop ??= levelStop(l);

    const searched = levelSearch(workload);
    this.search = searched
      ? (() => {
          const plan = searchPlan(workload, searched);
          return { plan, machine: new LoadSearch(plan.bounds, workload.slo.maxTtftMs !== null) };
        })()
      : null;
    if (this.search && options.previous) {
      // Its levels are kept numbered in the order run while it runs (`byLoad` sorts them for the document).
      const ran = byOrder(this.levels, this.samples);
      this.levels.splice(0, this.levels.length, ...ran.levels);
      this.samples.splice(0, this.samples.length, ...ran.samples);
    }

    const perStream = target.expectedOutputTokensPerSecond ?? DEFAULT_PLAN_ASSUMPTIONS.outputTokensPerSecondPerStream;
    this.requestSeconds = expectedRequestSeconds(workload, perStream);
    this.plan = planLevels(workload, this.requestSeconds, options.traces);
    this.replayed = this.plan[0] ? replayedWindow(this.plan[0].load) : null;
    this.threadHost =
      options.threadHost ?? (clock.threadable ? workerThreads(clock.threadable.timeOriginMs) : undefined);
  }

  /** Why the sweep must stop now (its signal, its deadline); null while it may go on. */
  readonly stopReason = (): string | null => {
    if (this.options.signal?.aborted) return "stopped by signal";
    if (this.options.deadlineMs !== undefined && this.clock.now() >= this.options.deadlineMs) return "deadline reached";
    return null;
  };

  /**
   * Where its levels come from: its search, else its ladder's plan from `startLevelIndex` (by default
   * after the levels of `previous`).
   */
  source(): LevelSource {
    const { search, options } = this;
    if (!search) return ladderSource(this.plan, options.startLevelIndex ?? this.levels.length);
    const context = { requestSeconds: this.requestSeconds, traces: options.traces };
    return new SearchSource(search, this.workload, context, this.levels, this.stop);
  }

  /** The run document of what the sweep holds now; a search's levels sorted by load, with its summary. */
  document(status: RunDocument["status"], reason = this.partialReason): RunDocument {
    const { search, levels, samples, stop, workload } = this;
    if (!search) return this.assemble(status, reason, levels, samples, summarizeRun(levels, { stop }));
    const sorted = byLoad(levels, samples);
    const summary = searchedSummary(
      summarizeRun(sorted.levels, { stop }),
      sorted.levels,
      sorted.samples,
      search.plan,
      search.machine.outcome(),
      workload,
    );
    return this.assemble(status, reason, sorted.levels, sorted.samples, summary);
  }

  /** The run document's fields: the target, the harness, the workload, and the levels, summary and samples given. */
  private assemble(
    status: RunDocument["status"],
    reason: string | null,
    levels: Level[],
    samples: Sample[],
    summary: RunDocument["summary"],
  ): RunDocument {
    const { target, canary } = this;
    return {
      schemaVersion: 4,
      runId: this.runId,
      targetId: target.id,
      scenario: this.options.scenario ?? "chat",
      label: target.label,
      model: target.model,
      modelKey: modelKeyOf(target),
      pricing: target.pricing ?? null,
      baseURL: target.baseURL,
      route: routeRecord(target),
      startedAt: this.startedAt,
      finishedAt: new Date().toISOString(),
      status,
      partialReason: status === "partial" ? (reason ?? "the sweep did not finish") : null,
      simulated: this.simulated,
      harness: {
        version: HARNESS_VERSION,
        node: process.version,
        host: hostname(),
        region: process.env.AWS_REGION ?? null,
      },
      workload: { ...this.workload },
      trace: this.replayed ? traceRecord(this.replayed) : null,
      levels,
      summary,
      samples,
      ...(target.reference ? { reference: true } : {}),
      ...(canary ? { canary } : {}),
      toolCalls: this.toolCalls,
    };
  }

  /**
   * The one sweep loop: the levels `source` gives, each measured the same way (`measureLevel`) and told
   * back to it, until it has none or a level calls for a stop; the document is saved (`onLevel`) after
   * each level another follows. The partial document when the sweep stopped, else null.
   */
  async walk(source: LevelSource): Promise<RunDocument | null> {
    let next = this.stop ? null : source.next(this.levels);
    while (next) {
      if (!(await this.measureLevel(next))) {
        source.stopped(this.partialReason ?? "stopped");
        return this.document("partial");
      }
      source.measured(this.levels.at(-1) as Level, this.stop);
      const name = next.plan.name;
      next = this.stop ? null : source.next(this.levels);
      if (next) await this.options.onLevel?.(this.document("partial", unfinished(name)));
    }
    return null;
  }

  /**
   * Runs one level and keeps it, on the threads its load needs (`levelThreads`), a probed one judged at
   * its looks; false when the sweep stopped during it (the document is then partial).
   */
  private async measureLevel({ plan: levelPlan, levelIndex, levelCount, probe }: NextLevel): Promise<boolean> {
    const { options, target } = this;
    const { level, load, name, requests, levelDurationSeconds } = levelPlan;
    // The level's N where its kind has one (a closed loop's, a conversation's); null for the others.
    const documented = documentLoad(load);
    const users = concurrencyOf(documented);
    try {
      const threads = levelThreads(options, load, this.levels.at(-1));
      const result = await runLevel({
        client: this.client,
        endpoint: this.endpoint,
        threads,
        threadHost: this.threadHost,
        scheduler: this.clock,
        origin: this.origin,
        place: { runId: this.runId, level, users, workload: this.workload },
        levelNumber: level,
        pricing: target.pricing ?? null,
        stopReason: this.stopReason,
        sizer: this.sizer,
        load,
        requests,
        levelDurationSeconds,
        watchHealth: options.watchHealth,
        expectedRequestMs: this.levels.at(-1)?.e2eMs.p50,
        signal: options.signal,
        deadlineMs: options.deadlineMs,
        ...(probe ? { judge: probe.judge.judge, count: probe.judge.requestsAfter } : {}),
        progress: (p) =>
          options.onProgress?.({
            ...p,
            targetId: target.id,
            level,
            load: documented,
            levelIndex,
            levelCount,
            threads,
          }),
      });
      if (result.simulated) this.simulated = true;
      const kept = probe ? { ...result.level, probe: probe.judge.probe(probe.order, result.samples) } : result.level;
      this.levels.push(kept);
      this.samples.push(...result.samples);
      this.stop = levelStop(kept, result.early);
      return true;
    } catch (error) {
      if (!(error instanceof Stopped)) throw error;
      this.partialReason = `${error.message} during ${name}`;
      return false;
    }
  }

  /**
   * The canary, then the tool-call phase, after the levels: each when some level had an answer (the
   * canary needs an endpoint that answers, not a valid level: a level the client limited still had its
   * answers) and the sweep was not stopped.
   */
  async runPhasesAfterLevels(): Promise<void> {
    const { client, options, workload } = this;
    const answered = this.levels.some((l) => l.requests.ok > 0);
    if (answered && options.canary && this.stopReason() === null)
      this.canary = await runCanary({
        client,
        settings: options.canary,
        workload,
        scheduler: this.clock,
        stopReason: this.stopReason,
        signal: options.signal,
      });
    if (answered && options.toolCalls && this.stopReason() === null)
      this.toolCalls = await runToolCalls({
        client,
        settings: options.toolCalls,
        workload,
        stopReason: this.stopReason,
        signal: options.signal,
      });
  }
}

/** What a reader finds if this is the last save: the process ended (killed, crashed) before the next level. */
function unfinished(name: string): string {
  return `the sweep had not finished after ${name} (its process ended, or it was still running)`;
}

function routeRecord(target: Target): RunDocument["route"] {
  const route = target.route as { gateway: RunDocument["route"]["gateway"]; provider?: string; deployment?: string };
  return {
    gateway: route.gateway,
    ...(route.provider ? { provider: route.provider } : {}),
    ...(route.deployment ? { deployment: route.deployment } : {}),
  };
}

/** Threads one level runs on (see `SweepOptions.threads`). */
function levelThreads(options: SweepOptions, load: LevelLoad, before: Level | undefined): number {
  const asked = options.threads ?? 1;
  if (asked === 1) return 1;
  if (!options.threadHost && (options.client || !(options.scheduler ?? systemScheduler).threadable)) return 1;
  const bound = loadThreadBound(load);
  if (asked !== "auto") return Math.max(1, Math.min(Math.floor(asked), bound));
  // The per-stream rate of the level before, else the target's expected one, else the plan's default.
  const perStream =
    before?.perStream.outputTokensPerSecond.p50 ??
    options.target.expectedOutputTokensPerSecond ??
    DEFAULT_PLAN_ASSUMPTIONS.outputTokensPerSecondPerStream;
  const chunksPerSecond = loadChunksPerSecond(load, perStream, options.workload.maxTokens);
  return threadsForChunkRate(chunksPerSecond, availableParallelism(), bound);
}
