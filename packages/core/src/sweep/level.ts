/**
 * @module One concurrency level: its state behind the `LevelRunner`'s methods (take the next index,
 * accept a result, record a 429 wait, end the level), and `runLevel`, which runs warm-up and the
 * measured closed loop on it, on this thread or on worker threads, and summarizes the level.
 */
import { type ClientHealth, type HealthWatch, watchClientHealth } from "../client/health.ts";
import type { ChatRequest, Endpoint, RawResult } from "../client/index.ts";
import type { Target, Workload } from "../config/index.ts";
import { distribution, EARLY_FAILURE_REQUESTS, type EarlyResult, summarizeLevel } from "../metrics/index.ts";
import type { Level, Sample } from "../run/index.ts";
import type { Scheduler, Timer } from "../scheduler/index.ts";
import { PromptSizer, promptFor } from "../workload/index.ts";
import { trackIntervals } from "./in-flight.ts";
import { type LevelCounters, type LoopResult, newDebts, runWorkers, type WorkerDebt } from "./loop.ts";
import { type OpenLoopRecord, poissonGapsMs, runOpenLoop } from "./open-loop.ts";
import { chatRequest, type RequestPlace } from "./request.ts";
import { toSample } from "./sample.ts";
import { runOnThreads } from "./threads.ts";

/** What sends one request: the streaming client, or a test's stand-in. */
export interface RequestSender {
  send(request: ChatRequest): Promise<RawResult>;
}

/** Thrown when the sweep stopped (signal or deadline) during a level: the level is not kept. */
export class Stopped extends Error {}

/** A failure for the first-requests rule: the endpoint did not serve the request (route mismatches did serve it). */
function failed(outcome: RawResult["outcome"]): boolean {
  return outcome !== "ok" && outcome !== "route_mismatch";
}

/**
 * The state of one level. Workers take indexes and send order from it (warm-up, then the measured
 * loop), hand it their results and waits, and ask whether the level has ended: early (its first
 * `EARLY_FAILURE_REQUESTS` requests in send order, warm-up included, all failed) or because the sweep
 * stopped. Either ends the requests in flight through `abort`.
 */
export class LevelRunner implements LevelCounters {
  /** Ends the level's requests in flight and its waits. */
  readonly abort = new AbortController();
  /** One per worker, kept from the warm-up into the measured loop. */
  readonly debts: WorkerDebt[];
  /** Measured results, in the order they came. */
  readonly results: LoopResult[] = [];
  /** Waits served after 429s, [from, to] on the scheduler's clock. */
  readonly waits: [number, number][] = [];
  /** The first requests' outcomes in send order, warm-up included. */
  readonly early: EarlyResult[] = [];
  endedEarly = false;
  /** A response of the level (warm-up included) announced a simulated server. */
  simulated = false;
  /** Why the sweep stopped during this level; null while it may go on. */
  stopped: string | null = null;
  /** The end of a timed level on the scheduler's clock; Infinity for a counted level. */
  endMs = Number.POSITIVE_INFINITY;
  private next = 0;
  private count = 0;
  private sent = 0;
  private earlyKnown = 0;
  private measuring = false;
  /** The first requests (warm-up included) the early-end rule judges: `EARLY_FAILURE_REQUESTS`, fewer when the level has fewer. */
  readonly earlyNeeded: number;

  constructor(
    concurrency: number,
    warmupRequests: number,
    requests: number | null,
    /** The sweep's stop condition, polled as workers go (the signal and the deadline also call `stop`). */
    private readonly stopReason: () => string | null = () => null,
  ) {
    this.debts = newDebts(concurrency);
    this.earlyNeeded = Math.min(EARLY_FAILURE_REQUESTS, warmupRequests + (requests ?? Number.POSITIVE_INFINITY));
  }

  /** Starts the warm-up (`measured` false) or the measured loop: `count` indexes from 0. */
  begin(count: number, measured: boolean): void {
    this.next = 0;
    this.count = count;
    this.measuring = measured;
  }

  /** Requests sent so far, warm-up included: where the send order goes on. */
  get sentCount(): number {
    return this.sent;
  }

  takeIndex(): number | null {
    if (this.ended() || this.next >= this.count) return null;
    return this.next++;
  }

  takeSeq(): number {
    return this.sent++;
  }

  exhausted(): boolean {
    return this.ended() || this.next >= this.count;
  }

  /**
   * Takes a result: the early-end rule sees it, and a measured one is kept. False when the level had
   * already ended: a request aborted for that is the harness's doing, not the endpoint's, and is dropped.
   */
  accept(result: LoopResult): boolean {
    if (this.ended()) return false;
    const { raw, seq } = result;
    if (raw.simulated) this.simulated = true;
    if (seq < this.earlyNeeded) {
      this.early[seq] = { outcome: raw.outcome, httpStatus: raw.httpStatus, error: raw.error };
      if (++this.earlyKnown === this.earlyNeeded && this.early.every((e) => failed(e.outcome))) {
        this.endedEarly = true;
        this.abort.abort();
      }
    }
    if (this.measuring) this.results.push(result);
    return true;
  }

  /** A worker served a wait after a 429 from `fromMs` to `toMs`. */
  waited(fromMs: number, toMs: number): void {
    this.waits.push([fromMs, toMs]);
  }

  /** The sweep stops: the level sends nothing more, its requests in flight end, and it is not kept. */
  stop(reason: string): void {
    this.stopped ??= reason;
    this.abort.abort();
  }

  /**
   * Stops the level when `signal` aborts or the scheduler's clock reaches `deadlineMs`; returns what
   * undoes that, for the level's end. A timer may fire a little before its time by the clock: the stop
   * waits until the clock says so, as the deadline's reader (the deployed sweep's continuation) judges
   * it by the clock.
   */
  stopOn(scheduler: Scheduler, signal?: AbortSignal, deadlineMs?: number): () => void {
    const onSignal = () => this.stop("stopped by signal");
    signal?.addEventListener("abort", onSignal, { once: true });
    let deadline: Timer | undefined;
    const arm = (atMs: number) => {
      deadline = scheduler.setTimer(() => {
        if (scheduler.now() >= atMs) this.stop("deadline reached");
        else arm(atMs);
      }, atMs - scheduler.now());
    };
    if (deadlineMs !== undefined) arm(deadlineMs);
    return () => {
      deadline?.cancel();
      signal?.removeEventListener("abort", onSignal);
    };
  }

  /** True once the level must send nothing more. */
  ended(): boolean {
    if (this.endedEarly || this.stopped !== null) return true;
    const reason = this.stopReason();
    if (reason !== null) this.stop(reason);
    return reason !== null;
  }
}

export interface LevelContext {
  client: RequestSender;
  /** Where worker threads send (each builds its own client). */
  endpoint: Endpoint;
  /** Worker threads the measured requests run on; 1 runs them on this thread. */
  threads: number;
  scheduler: Scheduler;
  /** Scheduler ms that samples' `startMs` count from. */
  origin: number;
  place: RequestPlace & { workload: Workload };
  /** The level's number in its sweep, 1-based (default 1): its record's `level`, and its samples'. */
  levelNumber?: number;
  pricing: Target["pricing"] | null;
  /** Why the sweep must stop now (signal, deadline), or null. */
  stopReason: () => string | null;
  /** Learns the endpoint's characters per prompt token across the sweep's levels (default: one for this level). */
  sizer?: PromptSizer;
  signal?: AbortSignal;
  /** Scheduler ms at which the sweep stops. */
  deadlineMs?: number;
  /**
   * An open-loop level: sends at `ratePerSecond` on a Poisson schedule seeded by `seed` (and the level's
   * number, `place.concurrency`), at most `maxInFlight` at once. Absent: a closed loop of N.
   */
  arrival?: { ratePerSecond: number; seed: number; maxInFlight: number };
  /** Watches the client process's own load through the measured loop (default `watchClientHealth`). */
  watchHealth?: () => HealthWatch;
  /** The previous level's e2e p50, ms: how long a request is expected to take (else the warm-up's). */
  expectedRequestMs?: number | null;
  /** Measured requests done so far and the level's live tok/s. */
  progress: (p: { done: number; total: number | null; liveTokensPerSecond: number; levelDone: boolean }) => void;
}

export interface LevelOutcome {
  level: Level;
  samples: Sample[];
  early: EarlyResult[];
  /** A response of the level announced a simulated server. */
  simulated: boolean;
}

/**
 * Runs warm-up, then the measured closed loop of one level, and summarizes it. Throws `Stopped` when
 * the sweep stopped during the level. Exactly N requests are in flight through the measured loop:
 * when one ends its worker sends the next, after the wait a 429 owes.
 */
export async function runLevel(ctx: LevelContext): Promise<LevelOutcome> {
  const { scheduler } = ctx;
  const { workload, concurrency } = ctx.place;
  const sizer = ctx.sizer ?? new PromptSizer();
  // Prompts are sized with what the endpoint's counts taught so far: the warm-up's teach the measured loop's.
  let place = { ...ctx.place, charsPerToken: sizer.charsPerToken };
  let chars = promptChars(place);
  const sized = (r: LoopResult) => {
    if (r.raw.outcome === "ok") sizer.observe(chars, r.raw.promptTokens);
  };
  const total = workload.requestsPerLevel ?? null;
  const runner = new LevelRunner(concurrency, workload.warmupRequests, total, ctx.stopReason);
  const { signal } = runner.abort;
  const disarm = runner.stopOn(scheduler, ctx.signal, ctx.deadlineMs);
  let watch: HealthWatch | undefined;
  const loop = (
    workers: number,
    warmup: boolean,
    onResult: (result: LoopResult) => boolean,
    firstSendDelayMs?: (worker: number) => number,
  ) =>
    runWorkers({
      debts: runner.debts.slice(0, workers),
      counters: runner,
      scheduler,
      signal,
      endMs: () => runner.endMs,
      send: (index) => ctx.client.send(chatRequest(place, index, warmup, signal, warmup ? undefined : watch)),
      onResult,
      onWait: (fromMs, toMs) => runner.waited(fromMs, toMs),
      firstSendDelayMs,
    });
  const warmupMs: number[] = [];
  try {
    // Warm-up: not measured; run at up to N at once so a cold endpoint is warm before timing starts.
    runner.begin(workload.warmupRequests, false);
    // An open loop warms up one request at a time: its level number is no count of users.
    const warmupWorkers = Math.min(ctx.arrival ? 1 : concurrency, workload.warmupRequests);
    await loop(warmupWorkers, true, (r) => {
      sized(r);
      if (r.raw.outcome === "ok") warmupMs.push(r.endMs - r.raw.startMs);
      return runner.accept(r) && !runner.ended();
    });
    if (runner.stopped) throw new Stopped(runner.stopped);
    place = { ...place, charsPerToken: sizer.charsPerToken };
    chars = promptChars(place);
    const { arrival } = ctx;

    runner.begin(total ?? Number.POSITIVE_INFINITY, true);
    let firstSendMs = scheduler.now();
    const startClock = () => {
      firstSendMs = scheduler.now();
      if (workload.levelDurationSeconds !== undefined)
        runner.endMs = firstSendMs + workload.levelDurationSeconds * 1000;
      return runner.endMs;
    };
    // No lock-step: the first N sends of a closed loop leave evenly over one expected request
    // duration, so completions, and the sends after them, spread out as independent users' would.
    const startSpreadMs = arrival || concurrency < 2 ? 0 : (ctx.expectedRequestMs ?? distribution(warmupMs).p50 ?? 0);
    const firstSendDelayMs = (worker: number) => (startSpreadMs * worker) / concurrency;
    let okTokens = 0;
    const onMeasured = (r: LoopResult): boolean => {
      if (!runner.accept(r)) return false;
      sized(r);
      if (r.raw.outcome === "ok") okTokens += r.raw.completionTokens ?? r.raw.contentChunks.length;
      ctx.progress({
        done: runner.results.length,
        total,
        liveTokensPerSecond: okTokens / ((r.endMs - firstSendMs) / 1000),
        levelDone: false,
      });
      return !runner.ended();
    };
    watch = (ctx.watchHealth ?? watchClientHealth)();
    let open: OpenLoopRecord | undefined;
    const threads = ctx.threads > 1 && !runner.ended() ? ctx.threads : 1;
    let threadHealth: ClientHealth[] = [];
    if (threads > 1) {
      const record = await runOnThreads({
        threads,
        endpoint: ctx.endpoint,
        place,
        count: total ?? Number.POSITIVE_INFINITY,
        firstSeq: runner.sentCount,
        firstSendDelayMs,
        timeOriginMs: (scheduler.threadable as { timeOriginMs: number }).timeOriginMs,
        signal,
        onGo: startClock,
        onResult: onMeasured,
        onWait: (fromMs, toMs) => runner.waited(fromMs, toMs),
        openLoop: arrival,
      });
      threadHealth = record.healths;
      if (arrival) open = { firstSendMs, lagsMs: record.lagsMs, maxInFlightHit: record.maxInFlightHit };
    } else if (arrival) {
      startClock();
      open = await runOpenLoop({
        counters: runner,
        scheduler,
        signal,
        gapsMs: poissonGapsMs(arrival.ratePerSecond, arrival.seed, concurrency),
        maxInFlight: arrival.maxInFlight,
        durationMs: runner.endMs - firstSendMs,
        send: (index) => ctx.client.send(chatRequest(place, index, false, signal, watch)),
        onResult: onMeasured,
      });
    } else {
      startClock();
      await loop(concurrency, false, onMeasured, firstSendDelayMs);
    }
    if (runner.stopped) throw new Stopped(runner.stopped);
    const health = mergeHealth(watch.stop(), threadHealth);
    const outcome = summarize(ctx, runner, firstSendMs, health, threads, open ?? { startSpreadMs });
    ctx.progress({
      done: runner.results.length,
      total,
      liveTokensPerSecond: outcome.level.aggregateOutputTokensPerSecond ?? 0,
      levelDone: true,
    });
    return outcome;
  } finally {
    watch?.stop();
    disarm();
  }
}

/** Characters of this place's prompts (they differ by a few characters of prefix only). */
function promptChars(place: RequestPlace): number {
  return promptFor({ ...place, level: place.concurrency, index: 0, promptTokens: place.workload.promptTokens }).length;
}

function summarize(
  ctx: LevelContext,
  runner: LevelRunner,
  firstSendMs: number,
  clientHealth: ClientHealth,
  threads: number,
  /** The open loop's record, or the closed loop's start spread. */
  arrivals: OpenLoopRecord | { startSpreadMs: number },
): LevelOutcome {
  const open = "lagsMs" in arrivals ? arrivals : undefined;
  const { workload, concurrency } = ctx.place;
  const results = runner.results;
  const lastEndMs = Math.max(firstSendMs, ...results.map((r) => r.endMs));
  // Achieved concurrency is judged up to the last send: the closed loop holds N until then by
  // design, and the drain after it belongs to the method, not to a client falling behind.
  const lastSendMs = Math.max(firstSendMs, ...results.map((r) => r.raw.startMs));
  const samples = [...results]
    .sort((a, b) => a.index - b.index)
    .map((r) => toSample(r.raw, ctx.levelNumber ?? 1, r.index, ctx.origin));
  // The judged window opens once the first N requests are out: sending them one after another
  // is the ramp of the method. A level whose requests all left in the ramp (requestsPerLevel <= N)
  // has no refill to judge, so the most requests in flight at once stands for it.
  const sendTimes = results.map((r) => r.raw.startMs).sort((a, b) => a - b);
  const rampEndMs = sendTimes[Math.min(concurrency, sendTimes.length) - 1] ?? firstSendMs;
  const measured = lastSendMs > rampEndMs;
  const inFlight = trackIntervals(results.map((r) => [r.raw.startMs, r.endMs]));
  const waiting = trackIntervals(runner.waits);
  // An open loop has no ramp: in flight is whatever the arrivals made of it, from the first send to the last.
  const openLoop =
    open && ctx.arrival
      ? {
          achievedRatePerSecond:
            sendTimes.length >= 2 && lastSendMs > firstSendMs
              ? (sendTimes.length - 1) / ((lastSendMs - firstSendMs) / 1000)
              : null,
          inFlightMean: inFlight.timeWeightedMean(firstSendMs, lastSendMs),
          inFlightMax: inFlight.maxInFlight,
          scheduleLagsMs: open.lagsMs,
          maxInFlight: ctx.arrival.maxInFlight,
          maxInFlightHit: open.maxInFlightHit,
        }
      : undefined;
  const level = summarizeLevel({
    level: ctx.levelNumber ?? 1,
    load: ctx.arrival
      ? { kind: "open", arrival: "poisson", ratePerSecond: ctx.arrival.ratePerSecond }
      : { kind: "closed", concurrency },
    samples,
    wallTimeMs: lastEndMs - firstSendMs,
    achievedConcurrency: openLoop
      ? openLoop.inFlightMean
      : measured
        ? inFlight.timeWeightedMean(rampEndMs, lastSendMs)
        : inFlight.maxInFlight,
    waitingConcurrency: measured ? waiting.timeWeightedMean(rampEndMs, lastSendMs) : 0,
    eventLoopLagP99Ms: clientHealth.eventLoopLagP99Ms,
    clientHealth,
    threads,
    slo: workload.slo,
    pricing: ctx.pricing,
    rateLimitWaitMs: runner.waits.reduce((sum, [from, to]) => sum + (to - from), 0),
    endedEarly: runner.endedEarly,
    earlyRequests: runner.earlyNeeded,
    requestsPerLevel: workload.requestsPerLevel,
    openLoop,
    startSpreadMs: "startSpreadMs" in arrivals ? arrivals.startSpreadMs : undefined,
  });
  // Gaps between chunks are summarized in the level; keeping them per sample would bloat the document.
  for (const s of samples) delete s.interChunkMs;
  return { level, samples, early: runner.early, simulated: runner.simulated };
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
