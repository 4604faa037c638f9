/**
 * @module The sweep: a closed loop per concurrency level, low to high, measuring every request.
 * Exactly N requests are in flight during a level; when one ends the next starts. A stop (signal or
 * deadline) ends the sweep between requests; the levels finished by then are kept, the run is partial.
 * Nothing is ever re-sent: a worker that got a 429 waits before its next send. A level invalid because
 * of rate limits or failures is the last one run (`summary.stop`), and a level whose first requests all
 * failed ends at once.
 */
import { randomBytes } from "node:crypto";
import type { Agent } from "node:http";
import { createRequire } from "node:module";
import { availableParallelism, hostname } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { type ClientHealth, type HealthWatch, watchClientHealth } from "../client/health.ts";
import { type Endpoint, type RawResult, StreamingClient } from "../client/index.ts";
import { modelKeyOf, type Target, type Workload } from "../config/index.ts";
import {
  deriveSampleFigures,
  EARLY_FAILURE_REQUESTS,
  type EarlyResult,
  levelStop,
  summarizeLevel,
  summarizeRun,
} from "../metrics/index.ts";
import { DEFAULT_PLAN_ASSUMPTIONS, threadsForChunkRate } from "../plan/index.ts";
import type { Level, RunDocument, Sample, Stop } from "../run/index.ts";
import { type Scheduler, systemScheduler } from "../scheduler/index.ts";
import { promptFor } from "../workload/index.ts";
import { inFlightTracker } from "./in-flight.ts";
import { pool, rateLimitWaitMs, SHARED_SEND_SEQ, SHARED_SLOTS, SHARED_STOP, sleep } from "./loop.ts";
import { THREAD_JOB_KIND, type ThreadJob, type ThreadMessage } from "./thread.ts";

export { RATE_LIMIT_FIRST_WAIT_MS, RATE_LIMIT_MAX_WAIT_MS, rateLimitWaitMs } from "./loop.ts";

/** The harness version written into every run document. */
export const HARNESS_VERSION = "0.1.0";

/** Live progress of a sweep, for a TTY line or a log line. */
export interface SweepProgress {
  targetId: string;
  concurrency: number;
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
  /** The key read from `target.apiKeyEnv`; never stored or logged. */
  apiKey?: string;
  /** Defaults to a random id; the AWS deployment derives it from the schedule slot. */
  runId?: string;
  /** Marks the run as produced by a simulated reference target. */
  simulated?: boolean;
  /** Where the sweep's times, timers and 429 waits come from (default: the system scheduler). */
  scheduler?: Scheduler;
  /** The keep-alive agent requests go through (default: one per sweep). */
  agent?: Agent;
  /** PEM CA the target's `https:` certificate must chain to, in place of Node's default CAs (tests); worker threads get it too. */
  ca?: string;
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
   * default, against one core's capacity, capped by the available cores); a number forces that many
   * (at most N). More than one needs a scheduler a thread can rebuild (`Scheduler.threadable`):
   * with a manual one every level runs on this thread.
   */
  threads?: number | "auto";
}

/** A fresh run id: 8 hex characters. */
export function newRunId(): string {
  return randomBytes(4).toString("hex");
}

class Stopped extends Error {}

/** A failure for the first-requests rule: the endpoint did not serve the request (route mismatches did serve it). */
function failed(outcome: RawResult["outcome"]): boolean {
  return outcome !== "ok" && outcome !== "route_mismatch";
}

/** Runs the whole sweep of one target and returns its run document. Request failures are data. */
export async function runSweep(options: SweepOptions): Promise<RunDocument> {
  const { target, workload } = options;
  const clock = options.scheduler ?? systemScheduler;
  const runId = options.previous?.runId ?? options.runId ?? newRunId();
  const startedAt = options.previous?.startedAt ?? new Date().toISOString();
  // A continued run's samples keep counting from the run's start (or at least after the earlier
  // samples, when the clock is not wall time), not from this invocation's.
  const resumedAtMs = options.previous
    ? options.previous.samples.reduce(
        (m, s) => Math.max(m, s.startMs + (s.e2eMs ?? 0)),
        Date.now() - Date.parse(startedAt),
      )
    : 0;
  const origin = clock.now() - resumedAtMs;
  const endpoint: Endpoint = {
    baseURL: target.baseURL,
    apiKey: options.apiKey,
    model: target.model,
    route: target.route,
    ...(options.ca ? { ca: options.ca } : {}),
  };
  const client = new StreamingClient(endpoint, { scheduler: clock, agent: options.agent });
  const levels: Level[] = [...(options.previous?.levels ?? [])];
  const samples: Sample[] = [...(options.previous?.samples ?? [])];
  let partialReason: string | null = null;
  // A continued sweep whose earlier levels already called for a stop runs nothing more.
  let stop: Stop | null = null;
  for (const l of levels) stop ??= levelStop(l);

  const stopReason = (): string | null => {
    if (options.signal?.aborted) return "stopped by signal";
    if (options.deadlineMs !== undefined && clock.now() >= options.deadlineMs) return "deadline reached";
    return null;
  };

  const document = (status: RunDocument["status"], reason = partialReason): RunDocument => ({
    schemaVersion: 1,
    runId,
    targetId: target.id,
    label: target.label,
    model: target.model,
    modelKey: modelKeyOf(target),
    pricing: target.pricing ?? null,
    baseURL: target.baseURL,
    route: routeRecord(target),
    startedAt,
    finishedAt: new Date().toISOString(),
    status,
    partialReason: status === "partial" ? (reason ?? "the sweep did not finish") : null,
    simulated: options.simulated ?? false,
    harness: {
      version: HARNESS_VERSION,
      node: process.version,
      host: hostname(),
      region: process.env.AWS_REGION ?? null,
    },
    workload: { ...workload },
    levels,
    summary: summarizeRun(levels, { stop }),
    samples,
  });

  const concurrencies = workload.concurrency;
  for (let levelIndex = options.startLevelIndex ?? 0; levelIndex < concurrencies.length && !stop; levelIndex++) {
    const concurrency = concurrencies[levelIndex] as number;
    try {
      const threads = levelThreads(options, concurrency, levels.at(-1));
      const result = await runLevel({
        client,
        endpoint,
        threads,
        clock,
        origin,
        runId,
        workload,
        concurrency,
        pricing: target.pricing ?? null,
        stopReason,
        signal: options.signal,
        deadlineMs: options.deadlineMs,
        progress: (p) =>
          options.onProgress?.({ ...p, targetId: target.id, levelIndex, levelCount: concurrencies.length, threads }),
      });
      levels.push(result.level);
      samples.push(...result.samples);
      stop = levelStop(result.level, result.early);
    } catch (error) {
      if (!(error instanceof Stopped)) throw error;
      partialReason = `${error.message} during concurrency ${concurrency}`;
      return document("partial");
    }
    if (levelIndex < concurrencies.length - 1 && !stop) {
      // What a reader finds if this is the last save: the process ended (killed, crashed) before the next level.
      const unfinished = `the sweep had not finished after concurrency ${concurrency} (its process ended, or it was still running)`;
      await options.onLevel?.(document("partial", unfinished));
    }
  }
  return document("complete");
}

function routeRecord(target: Target): RunDocument["route"] {
  const route = target.route as { gateway: RunDocument["route"]["gateway"]; provider?: string; deployment?: string };
  return {
    gateway: route.gateway,
    ...(route.provider ? { provider: route.provider } : {}),
    ...(route.deployment ? { deployment: route.deployment } : {}),
  };
}

/** Worker threads one level runs on (see `SweepOptions.threads`). */
function levelThreads(options: SweepOptions, concurrency: number, before: Level | undefined): number {
  const asked = options.threads ?? 1;
  if (asked === 1 || !(options.scheduler ?? systemScheduler).threadable) return 1;
  if (asked !== "auto") return Math.max(1, Math.min(Math.floor(asked), concurrency));
  const perStream =
    (before?.perStream.outputTokensPerSecond.p50 ??
      options.target.expectedOutputTokensPerSecond ??
      DEFAULT_PLAN_ASSUMPTIONS.outputTokensPerSecondPerStream) * DEFAULT_PLAN_ASSUMPTIONS.chunksPerToken;
  return threadsForChunkRate(concurrency * perStream, availableParallelism(), concurrency);
}

interface LevelContext {
  client: StreamingClient;
  endpoint: Endpoint;
  /** Worker threads the measured requests run on; 1 runs them on this thread. */
  threads: number;
  clock: Scheduler;
  origin: number;
  runId: string;
  workload: Workload;
  concurrency: number;
  pricing: Target["pricing"] | null;
  stopReason: () => string | null;
  signal?: AbortSignal;
  deadlineMs?: number;
  progress: (p: Omit<SweepProgress, "targetId" | "levelIndex" | "levelCount" | "threads">) => void;
}

/**
 * Runs warm-up, then the measured closed loop of one level. Throws Stopped when the sweep must stop.
 * Each worker that got a 429 waits (`rateLimitWaitMs`) before its next send; the wait ends early on a
 * stop. When the level's first `EARLY_FAILURE_REQUESTS` requests (warm-up included, in send order) all
 * failed, the level ends at once: requests still in flight are aborted and not recorded.
 */
async function runLevel(ctx: LevelContext): Promise<{ level: Level; samples: Sample[]; early: EarlyResult[] }> {
  const { client, clock, workload, concurrency } = ctx;
  // Aborting in-flight requests on a stop or at the deadline: the level cannot finish anyway.
  const abort = new AbortController();
  const onStop = () => abort.abort();
  ctx.signal?.addEventListener("abort", onStop, { once: true });
  const deadlineTimer =
    ctx.deadlineMs !== undefined ? setTimeout(onStop, Math.max(0, ctx.deadlineMs - clock.now())) : undefined;
  // The measured loop's health watch, once it starts: it sees measured requests wait for their first token.
  let health: HealthWatch | undefined;
  const request = (index: number, warmup: boolean) => ({
    prompt: promptFor({ runId: ctx.runId, level: concurrency, index, warmup, promptTokens: workload.promptTokens }),
    maxTokens: workload.maxTokens,
    temperature: workload.temperature,
    ignoreEos: workload.ignoreEos,
    timeoutMs: workload.requestTimeoutSeconds * 1000,
    signal: abort.signal,
    firstToken: warmup ? undefined : health,
  });
  const checkStop = () => {
    const reason = ctx.stopReason();
    if (reason) throw new Stopped(reason);
  };

  // The first requests of the level in send order, warm-up included, for the early-end rule.
  const total = workload.requestsPerLevel ?? null;
  const earlyNeeded = Math.min(EARLY_FAILURE_REQUESTS, workload.warmupRequests + (total ?? Number.POSITIVE_INFINITY));
  const early: EarlyResult[] = [];
  let earlyKnown = 0;
  let sentCount = 0;
  let endedEarly = false;
  // Per worker: 429s in a row and the wait owed before its next send, ms.
  const owed = Array.from({ length: Math.max(concurrency, workload.warmupRequests) }, () => ({ streak: 0, waitMs: 0 }));
  const waiting = inFlightTracker();
  let rateLimitWaitTotalMs = 0;
  // The end of a timed level (clock ms); a worker whose 429 wait outlasts it sends nothing more.
  let levelEndMs = Number.POSITIVE_INFINITY;

  /**
   * Serves the wait `worker` owes after a 429, before it takes its next index (the pool's `beforeTake`):
   * the level's other workers take the indexes left meanwhile. False when the level ended early or its
   * time ran out meanwhile.
   */
  const serveWait = async (worker: number): Promise<boolean> => {
    const state = owed[worker] as { streak: number; waitMs: number };
    if (state.waitMs > 0) {
      const from = clock.now();
      waiting.start(from);
      await sleep(state.waitMs, abort.signal);
      const to = clock.now();
      waiting.end(to);
      rateLimitWaitTotalMs += to - from;
      state.waitMs = 0;
    }
    return !endedEarly && clock.now() < levelEndMs;
  };

  /**
   * Sends one request from `worker` (its 429 wait served by `serveWait`); null when the level ended
   * early or its time ran out. `inFlight` (the measured loop's tracker) sees the request from send to end.
   */
  const send = async (
    worker: number,
    index: number,
    warmup: boolean,
    inFlight?: ReturnType<typeof inFlightTracker>,
  ): Promise<RawResult | null> => {
    const state = owed[worker] as { streak: number; waitMs: number };
    if (endedEarly || clock.now() >= levelEndMs) return null;
    checkStop();
    const seq = sentCount++;
    inFlight?.start(clock.now());
    const raw = await client.send(request(index, warmup));
    inFlight?.end(clock.now());
    // Requests aborted because the level ended early are the harness's doing, not the endpoint's.
    if (endedEarly) return null;
    if (raw.outcome === "rate_limited") {
      state.streak++;
      state.waitMs = rateLimitWaitMs(raw.retryAfterSeconds, state.streak);
    } else state.streak = 0;
    if (seq < earlyNeeded) {
      early[seq] = { outcome: raw.outcome, httpStatus: raw.httpStatus, error: raw.error };
      if (++earlyKnown === earlyNeeded && early.every((e) => failed(e.outcome))) {
        endedEarly = true;
        abort.abort();
      }
    }
    return raw;
  };

  /**
   * Runs the measured closed loop on `threads` worker threads, N split over them, and hands each
   * result to `onMessage` as it comes; returns each thread's client health. The shared counters hand
   * out request indexes and send order; the level's abort (a stop, the deadline, an early end) reaches
   * every thread. 429 waits are added to this level's totals.
   */
  const onThreads = async (
    threads: number,
    count: number,
    onMessage: (m: Extract<ThreadMessage, { type: "result" }>) => void,
    onGo: () => void,
  ): Promise<ClientHealth[]> => {
    const shared = new SharedArrayBuffer(SHARED_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    const counters = new Int32Array(shared);
    counters[SHARED_SEND_SEQ] = sentCount;
    const job = (workers: number): ThreadJob => ({
      kind: THREAD_JOB_KIND,
      endpoint: ctx.endpoint,
      runId: ctx.runId,
      concurrency,
      promptTokens: workload.promptTokens,
      maxTokens: workload.maxTokens,
      temperature: workload.temperature,
      ignoreEos: workload.ignoreEos,
      timeoutMs: workload.requestTimeoutSeconds * 1000,
      workers,
      count,
      timeOriginMs: (clock.threadable as { timeOriginMs: number }).timeOriginMs,
      shared,
    });
    const started = Array.from({ length: threads }, (_, i) =>
      startThread(job(Math.floor(concurrency / threads) + (i < concurrency % threads ? 1 : 0))),
    );
    const stopThreads = () => {
      Atomics.store(counters, SHARED_STOP, 1);
      for (const thread of started) thread.postMessage("abort");
    };
    if (abort.signal.aborted) stopThreads();
    abort.signal.addEventListener("abort", stopThreads, { once: true });
    const healths: ClientHealth[] = [];
    let failure: string | null = null;
    let ready = 0;
    try {
      await Promise.all(
        started.map(
          (thread) =>
            new Promise<void>((resolve) => {
              thread.on("message", (m: ThreadMessage) => {
                if (m.type === "ready" && ++ready === threads) {
                  // Loading a thread takes a while: the level's time starts when all can send.
                  onGo();
                  for (const thread of started) thread.postMessage({ go: levelEndMs });
                } else if (m.type === "result") onMessage(m);
                else if (m.type === "done") {
                  healths.push(m.health);
                  rateLimitWaitTotalMs += m.rateLimitWaitMs;
                  for (const [from, to] of m.waits) {
                    waiting.start(from);
                    waiting.end(to);
                  }
                } else if (m.type === "error") failure ??= m.message;
              });
              thread.on("error", (error) => {
                failure ??= String(error);
                resolve();
              });
              thread.on("exit", () => resolve());
            }),
        ),
      );
    } finally {
      abort.signal.removeEventListener("abort", stopThreads);
      await Promise.all(started.map((thread) => thread.terminate()));
    }
    if (failure !== null) throw new Error(`a sweep thread failed: ${failure}`);
    return healths;
  };

  try {
    // Warm-up: not measured; run at up to N at once so a cold endpoint is warm before timing starts.
    await pool(
      Math.min(concurrency, workload.warmupRequests),
      workload.warmupRequests,
      async (i, worker) => {
        checkStop();
        if ((await send(worker, i, true)) === null) return false;
      },
      serveWait,
    );
    checkStop();

    if (workload.levelDurationSeconds !== undefined) levelEndMs = clock.now() + workload.levelDurationSeconds * 1000;
    const tracker = inFlightTracker();
    const results: { index: number; raw: RawResult; endMs: number }[] = [];
    let okTokens = 0;
    let firstSendMs = clock.now();
    const watch = watchClientHealth();
    health = watch;
    const onResult = (index: number, raw: RawResult, endMs: number) => {
      results.push({ index, raw, endMs });
      if (raw.outcome === "ok") okTokens += raw.completionTokens ?? raw.contentChunks.length;
      ctx.progress({
        concurrency,
        done: results.length,
        total,
        liveTokensPerSecond: okTokens / ((endMs - firstSendMs) / 1000),
        levelDone: false,
      });
    };
    let threadHealth: ClientHealth[] = [];
    const threads = ctx.threads > 1 && !endedEarly ? ctx.threads : 1;
    if (threads > 1) {
      threadHealth = await onThreads(
        threads,
        total ?? Number.POSITIVE_INFINITY,
        (m) => {
          // Results that arrive after the level ended early are requests the harness aborted.
          if (endedEarly) return;
          sentCount = Math.max(sentCount, m.seq + 1);
          if (m.seq < earlyNeeded) {
            early[m.seq] = { outcome: m.raw.outcome, httpStatus: m.raw.httpStatus, error: m.raw.error };
            if (++earlyKnown === earlyNeeded && early.every((e) => failed(e.outcome))) {
              endedEarly = true;
              abort.abort();
            }
          }
          onResult(m.index, m.raw, m.endMs);
        },
        () => {
          firstSendMs = clock.now();
          if (workload.levelDurationSeconds !== undefined)
            levelEndMs = firstSendMs + workload.levelDurationSeconds * 1000;
        },
      );
      checkStop();
      // Requests came back from several threads in any order: the tracker takes them in time order.
      for (const [t, delta] of results
        .flatMap((r): [number, number][] => [
          [r.raw.startMs, 1],
          [r.endMs, -1],
        ])
        .sort((a, b) => a[0] - b[0] || a[1] - b[1]))
        if (delta > 0) tracker.start(t);
        else tracker.end(t);
    } else
      await pool(
        concurrency,
        endedEarly ? 0 : (total ?? Number.POSITIVE_INFINITY),
        async (index, worker) => {
          if (clock.now() >= levelEndMs || endedEarly) return false;
          checkStop();
          const raw = await send(worker, index, false, tracker);
          if (raw === null) return false;
          const endMs = clock.now();
          checkStop();
          onResult(index, raw, endMs);
          return !endedEarly;
        },
        serveWait,
      );
    const clientHealth = mergeHealth(watch.stop(), threadHealth);
    const lastEndMs = Math.max(firstSendMs, ...results.map((r) => r.endMs));
    // Achieved concurrency is judged up to the last send: the closed loop holds N until then by
    // design, and the drain after it belongs to the method, not to a client falling behind.
    const lastSendMs = Math.max(firstSendMs, ...results.map((r) => r.raw.startMs));
    const wallTimeMs = lastEndMs - firstSendMs;
    const levelSamples = results
      .sort((a, b) => a.index - b.index)
      .map((r) => toSample(r.raw, concurrency, r.index, ctx.origin));
    // The judged window opens once the first N requests are out: sending them one after another
    // is the ramp of the method. A level whose requests all left in the ramp (requestsPerLevel <= N)
    // has no refill to judge, so the most requests in flight at once stands for it.
    const sendTimes = results.map((r) => r.raw.startMs).sort((a, b) => a - b);
    const rampEndMs = sendTimes[Math.min(concurrency, sendTimes.length) - 1] ?? firstSendMs;
    const measured = lastSendMs > rampEndMs;
    const level = summarizeLevel({
      concurrency,
      samples: levelSamples,
      wallTimeMs,
      achievedConcurrency: measured ? tracker.timeWeightedMean(rampEndMs, lastSendMs) : tracker.maxInFlight,
      waitingConcurrency: measured ? waiting.timeWeightedMean(rampEndMs, lastSendMs) : 0,
      eventLoopLagP99Ms: clientHealth.eventLoopLagP99Ms,
      clientHealth,
      threads,
      slo: workload.slo,
      pricing: ctx.pricing,
      rateLimitWaitMs: rateLimitWaitTotalMs,
      endedEarly,
      requestsPerLevel: total ?? undefined,
    });
    ctx.progress({
      concurrency,
      done: results.length,
      total,
      liveTokensPerSecond: level.aggregateOutputTokensPerSecond ?? 0,
      levelDone: true,
    });
    // Gaps between chunks are summarized in the level; keeping them per sample would bloat the document.
    for (const s of levelSamples) delete s.interChunkMs;
    return { level, samples: levelSamples, early };
  } finally {
    clearTimeout(deadlineTimer);
    ctx.signal?.removeEventListener("abort", onStop);
  }
}

/**
 * The module a level's thread loads. From the TypeScript sources (tests, the CLI) that is thread.ts,
 * run through tsx. A bundle (the sweep Lambda) holds thread.ts's code inside itself, since this module
 * imports it: the thread loads the bundle, and thread.ts's guard on `workerData` starts its job.
 */
const THREAD_MODULE = import.meta.url.endsWith(".ts")
  ? new URL("./thread.ts", import.meta.url)
  : new URL(import.meta.url);

/**
 * tsx's ESM API, for a thread that must load TypeScript: resolved from here, whatever the working folder.
 * (A worker's `execArgv: ["--import", "tsx"]` does not reach its entry module on Node 20; registering
 * the hooks in the thread before importing it does.)
 */
function tsxApi(): string {
  const packageJson = createRequire(import.meta.url).resolve("tsx/package.json");
  return pathToFileURL(join(dirname(packageJson), "dist", "esm", "api", "index.mjs")).href;
}

function startThread(job: ThreadJob): Worker {
  if (!THREAD_MODULE.pathname.endsWith(".ts")) return new Worker(THREAD_MODULE, { workerData: job });
  const boot = `import { register } from ${JSON.stringify(tsxApi())}; register(); await import(${JSON.stringify(THREAD_MODULE.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData: job });
}

/**
 * The client health of a level run on several threads: each thread's own loop delay and utilization
 * (the worst thread bends the figures), the CPU share as the process measured it (all threads).
 */
function mergeHealth(main: ClientHealth, threads: ClientHealth[]): ClientHealth {
  const worst = (pick: (h: ClientHealth) => number) => Math.max(pick(main), ...threads.map(pick));
  return {
    eventLoopLagP99Ms: worst((h) => h.eventLoopLagP99Ms),
    eventLoopLagMeanMs: worst((h) => h.eventLoopLagMeanMs),
    loopUtilization: worst((h) => h.loopUtilization),
    cpuShare: main.cpuShare,
    firstTokenReadDelayMs: worst((h) => h.firstTokenReadDelayMs ?? 0),
  };
}

/** Turns a raw client result into a sample with the per-request figures of docs/methodology.md. */
export function toSample(raw: RawResult, level: number, index: number, origin: number): Sample {
  const fromUsage = raw.completionTokens !== null;
  const completionTokens = fromUsage
    ? raw.completionTokens
    : raw.contentChunks.length > 0
      ? raw.contentChunks.length
      : null;
  const figures = deriveSampleFigures({
    startMs: raw.startMs,
    contentChunks: raw.contentChunks,
    completionTokens,
    firstAnswerMs: raw.firstAnswerMs,
  });
  return {
    level,
    index,
    outcome: raw.outcome,
    startMs: raw.startMs - origin,
    ttftMs: figures.ttftMs,
    ttftAnswerMs: figures.ttftAnswerMs,
    reasoningTokens: raw.reasoningTokens,
    cachedPromptTokens: raw.cachedPromptTokens,
    costUsd: raw.costUsd,
    e2eMs: figures.e2eMs,
    completionTokens,
    tokenSource: completionTokens === null ? null : fromUsage ? "usage" : "chunks",
    promptTokens: raw.promptTokens,
    outputTokensPerSecond: figures.outputTokensPerSecond,
    decodeTokensPerSecond: figures.decodeTokensPerSecond,
    tpotMs: figures.tpotMs,
    interChunkMs: figures.interChunkMs,
    chunks: raw.contentChunks.length,
    responseId: raw.responseId,
    servedProvider: raw.servedProvider,
    httpStatus: raw.httpStatus,
    retryAfterSeconds: raw.retryAfterSeconds,
    finishReason: raw.finishReason,
    error: raw.error,
    connection: raw.connection,
    staleSockets: raw.staleSockets,
    staleSocketMs: raw.staleSocketMs,
    connectMs: raw.connectMs,
    tlsMs: raw.tlsMs,
  };
}
