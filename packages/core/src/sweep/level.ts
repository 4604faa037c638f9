/**
 * @module One level: its state behind the `LevelRunner`'s methods (take the next index, accept a
 * result, record a 429 wait, end the level), and `runLevel`, which runs warm-up and the measured sends
 * on it (its load kind's `LevelDriver`, on this thread or wrapped across threads) and summarizes the level.
 */
import { type ClientHealth, type HealthWatch, watchClientHealth } from "../client/health.ts";
import type { Endpoint, RawResult } from "../client/index.ts";
import type { Target, Workload } from "../config/index.ts";
import type { LevelWindow, LoadFigures } from "../drive/driver.ts";
import { trackIntervals } from "../drive/in-flight.ts";
import {
  type LevelCounters,
  type LoopResult,
  newDebts,
  runWorkers,
  type WaitKind,
  type WorkerDebt,
} from "../drive/loop.ts";
import type { Turn } from "../drive/session.ts";
import { documentLoad, driverOf, replayedWindow } from "../kinds/index.ts";
import { distribution, EARLY_FAILURE_REQUESTS, type EarlyResult, summarizeLevel } from "../metrics/index.ts";
import type { LevelLoad } from "../plan/index.ts";
import type { Level, Sample } from "../run/index.ts";
import type { Scheduler, Timer } from "../scheduler/index.ts";
import { PromptSizer } from "../workload/index.ts";
import { chatRequest, type RequestPlace, type RequestSender, requestChars } from "./request.ts";
import { toSample } from "./sample.ts";
import { SharedCounters, sharedCountersBuffer } from "./shared-counters.ts";
import { type ThreadHost, threaded } from "./threads.ts";

export type { RequestSender } from "./request.ts";

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
  /** Think times served between a conversation's turns, [from, to] on the scheduler's clock. */
  readonly thinks: [number, number][] = [];
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
  /** The indexes the current loop counts to (`begin`). */
  count = 0;
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

  /**
   * The level's counters across its threads, where its measured loop runs on several: what the count,
   * the judge and the results say here, its threads follow.
   */
  shared: SharedCounters | null = null;

  /** The measured loop sends up to `count` (never fewer than it was): a level not judged draws on past its failures. */
  extend(count: number): void {
    this.count = Math.max(this.count, count);
    this.shared?.raise(this.count);
  }

  /** A searched level's judge had enough: nothing more is sent, on this thread or its threads. */
  suffice(): void {
    this.enough = true;
    this.shared?.stop();
  }

  /** The count may grow (`LevelContext.count`): a worker with nothing left waits for the results in flight (`more`). */
  extendable = false;
  private parked: ((more: boolean) => void)[] = [];

  /** `LevelCounters.more`: true once the count grew past the indexes taken; false once every measured send has ended. */
  more(): Promise<boolean> {
    if (!this.extendable || !this.measuring) return Promise.resolve(false);
    if (this.settled()) return Promise.resolve(!this.exhausted());
    return new Promise((resolve) => this.parked.push(resolve));
  }

  /** Answers the workers waiting in `more` (here, or in the level's threads), once the answer is known. */
  settle(): void {
    const { shared } = this;
    // Every send its threads took has ended, and none is free: the count is final.
    if (shared?.exhausted() && this.results.length >= shared.takenCount()) shared.finish();
    if (this.parked.length === 0 || !this.settled()) return;
    const go = !this.exhausted();
    for (const resolve of this.parked.splice(0)) resolve(go);
  }

  /** More indexes are free, the level has ended, or every measured send has ended (the count is final). */
  private settled(): boolean {
    return !this.exhausted() || this.ended() || this.enough || this.results.length >= this.next;
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
    if (this.ended() || this.enough || this.next >= this.count) return null;
    return this.next++;
  }

  /** A searched level's judge had enough measured requests (`suffice`): nothing more is sent, the requests in flight end and are kept. */
  enough = false;

  takeSeq(): number {
    return this.sent++;
  }

  exhausted(): boolean {
    return this.ended() || this.enough || this.next >= this.count;
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

  /** A worker served a wait (after a 429, or a think time) from `fromMs` to `toMs`. */
  waited(fromMs: number, toMs: number, kind: WaitKind = "rate_limit"): void {
    (kind === "think" ? this.thinks : this.waits).push([fromMs, toMs]);
  }

  /** The sweep stops: the level sends nothing more, its requests in flight end, and it is not kept. */
  stop(reason: string): void {
    this.stopped ??= reason;
    this.abort.abort();
    this.settle();
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
  /** Threads the measured requests run on; 1 runs them on this thread. */
  threads: number;
  /** Where a level on more than one thread runs them (without one, every level runs on this thread). */
  threadHost?: ThreadHost;
  scheduler: Scheduler;
  /** Scheduler ms that samples' `startMs` count from. */
  origin: number;
  place: RequestPlace & { workload: Workload };
  /** The level's number in its sweep, 1-based: its record's `level`, and its samples'. */
  levelNumber: number;
  pricing: Target["pricing"] | null;
  /** Why the sweep must stop now (signal, deadline), or null. */
  stopReason: () => string | null;
  /** Learns the endpoint's characters per prompt token across the sweep's levels (default: one for this level). */
  sizer?: PromptSizer;
  signal?: AbortSignal;
  /** Scheduler ms at which the sweep stops. */
  deadlineMs?: number;
  /** What the level sends (its `LevelPlan`'s load), run by that kind's driver. */
  load: LevelLoad;
  /** Its `LevelPlan`'s measured requests (null: it runs for `levelDurationSeconds`). */
  requests: number | null;
  /** Its `LevelPlan`'s time of sends, seconds; null with a request count. */
  levelDurationSeconds: number | null;
  /** Watches the client process's own load through the measured loop (default `watchClientHealth`). */
  watchHealth?: () => HealthWatch;
  /** The previous level's e2e p50, ms: how long a request is expected to take (else the warm-up's). */
  expectedRequestMs?: number | null;
  /**
   * A searched level's judge: told the measured results so far after each one, true once they suffice
   * (its decision is taken); the level then sends nothing more, on this thread or its threads, and the
   * requests in flight end and are kept. Absent: the level sends all its requests.
   */
  judge?: (results: readonly LoopResult[]) => boolean;
  /** A searched level's count as its results come (`ProbeJudge.requestsAfter`): it may grow, never shrink. */
  count?: (results: readonly LoopResult[]) => number;
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
 * Runs warm-up, then the measured sends of one level (its load kind's driver, on this thread or
 * wrapped across threads), and summarizes it. Throws `Stopped` when the sweep stopped during the level.
 */
export async function runLevel(ctx: LevelContext): Promise<LevelOutcome> {
  const { scheduler } = ctx;
  const { workload, users } = ctx.place;
  const driver = driverOf(ctx.load.kind);
  const sizer = ctx.sizer ?? new PromptSizer();
  // Prompts are sized with what the endpoint's counts taught so far: the warm-up's teach the measured loop's.
  let place = { ...ctx.place, charsPerToken: sizer.charsPerToken };
  let chars = promptChars(place);
  // A conversation's first turn stands for its prompts (later ones carry answers of their own size).
  const sized = (r: LoopResult) => {
    if (r.raw.outcome === "ok" && (r.turn ?? 1) === 1) sizer.observe(chars, r.raw.promptTokens);
  };
  const total = ctx.requests;
  // One 429 debt per worker: N of them, or the one a kind without N warms up with.
  const runner = new LevelRunner(users ?? 1, workload.warmupRequests, total, ctx.stopReason);
  runner.extendable = ctx.count !== undefined;
  const { signal } = runner.abort;
  const disarm = runner.stopOn(scheduler, ctx.signal, ctx.deadlineMs);
  let watch: HealthWatch | undefined;
  const send = (index: number, warmup: boolean, turn?: Turn) =>
    ctx.client.send(chatRequest(place, index, warmup, signal, warmup ? undefined : watch, turn));
  const warmupMs: number[] = [];
  try {
    // Warm-up: not measured; its workers are the driver's, so a cold endpoint is warm before timing starts.
    runner.begin(workload.warmupRequests, false);
    await runWorkers({
      debts: runner.debts.slice(0, driver.warmupWorkers(ctx.load, workload.warmupRequests)),
      counters: runner,
      scheduler,
      signal,
      endMs: () => runner.endMs,
      send: (index) => send(index, true),
      onResult: (r) => {
        sized(r);
        if (r.raw.outcome === "ok") warmupMs.push(r.endMs - r.raw.startMs);
        return runner.accept(r) && !runner.ended();
      },
      onWait: (fromMs, toMs, kind) => runner.waited(fromMs, toMs, kind),
    });
    if (runner.stopped) throw new Stopped(runner.stopped);
    place = { ...place, charsPerToken: sizer.charsPerToken };
    chars = promptChars(place);
    // A replay's blocks are sized once, after the warm-up, so each id is the same text all through the level.
    const replay = replayedWindow(ctx.load);
    if (replay) place.replay = replayPlace(replay, place.runId, ctx.levelNumber, sizer.charsPerToken);

    runner.begin(total ?? Number.POSITIVE_INFINITY, true);
    const spec = driver.prepare(ctx.load, {
      level: ctx.levelNumber,
      expectedRequestMs: ctx.expectedRequestMs ?? distribution(warmupMs).p50 ?? 0,
    });
    let firstSendMs = scheduler.now();
    const startClock = () => {
      firstSendMs = scheduler.now();
      if (ctx.levelDurationSeconds !== null) runner.endMs = firstSendMs + ctx.levelDurationSeconds * 1000;
      return runner.endMs;
    };
    let okTokens = 0;
    const onMeasured = (r: LoopResult): boolean => {
      if (!runner.accept(r)) return false;
      // A replayed prompt's size is its recorded request's, not the workload's: it teaches the sizer nothing.
      if (!replay) sized(r);
      if (r.raw.outcome === "ok") okTokens += r.raw.completionTokens ?? r.raw.contentChunks.length;
      if (ctx.count) runner.extend(ctx.count(runner.results));
      if (ctx.judge && !runner.enough && ctx.judge(runner.results)) runner.suffice();
      runner.settle();
      ctx.progress({
        done: runner.results.length,
        total,
        liveTokensPerSecond: okTokens / ((r.endMs - firstSendMs) / 1000),
        levelDone: false,
      });
      return !runner.ended();
    };
    watch = (ctx.watchHealth ?? watchClientHealth)();
    const threads = ctx.threads > 1 && ctx.threadHost && !runner.ended() ? ctx.threads : 1;
    if (threads > 1)
      runner.shared = new SharedCounters(sharedCountersBuffer(runner.sentCount, total ?? Number.POSITIVE_INFINITY));
    const run =
      runner.shared && ctx.threadHost
        ? threaded(driver, {
            threads,
            host: ctx.threadHost,
            endpoint: ctx.endpoint,
            place,
            counters: runner.shared,
            growable: runner.extendable,
          })
        : driver;
    const record = await run.drive(spec, {
      counters: runner,
      scheduler,
      signal,
      start: startClock,
      send: (index, turn) => send(index, false, turn),
      onResult: onMeasured,
      onWait: (fromMs, toMs, kind) => runner.waited(fromMs, toMs, kind),
      debts: runner.debts,
    });
    if (runner.stopped) throw new Stopped(runner.stopped);
    const health = mergeHealth(watch.stop(), record.threadHealths ?? []);
    const outcome = summarize(ctx, runner, firstSendMs, health, threads, driver.describe.bind(driver, spec, record));
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

/** Where a replay's requests come from and how its prefix blocks are sized (at `charsPerToken`): the request place's `replay`. */
function replayPlace(
  replay: NonNullable<ReturnType<typeof replayedWindow>>,
  runId: string,
  level: number,
  charsPerToken: number,
): NonNullable<RequestPlace["replay"]> {
  return { requests: replay.requests, place: { runId, level, blockSize: replay.blockSize, charsPerToken } };
}

/** Characters of this place's prompts, a conversation's first turn (they differ by a few characters of prefix only). */
function promptChars(place: RequestPlace): number {
  return requestChars(chatRequest(place, 0, false, new AbortController().signal));
}

/**
 * The output tokens of the ok results that arrived within [fromMs, toMs]: each result's tokens shared
 * evenly over its content chunks, counted by the chunks' arrival times.
 */
function tokensWithin(results: readonly { raw: RawResult }[], fromMs: number, toMs: number): number {
  let tokens = 0;
  for (const { raw } of results) {
    const chunks = raw.contentChunks;
    if (raw.outcome !== "ok" || chunks.length === 0) continue;
    const inside = chunks.filter((c) => c.tMs >= fromMs && c.tMs <= toMs).length;
    tokens += ((raw.completionTokens ?? chunks.length) * inside) / chunks.length;
  }
  return tokens;
}

function summarize(
  ctx: LevelContext,
  runner: LevelRunner,
  firstSendMs: number,
  clientHealth: ClientHealth,
  threads: number,
  /** What the driver records of the load in this window. */
  describe: (window: LevelWindow) => LoadFigures,
): LevelOutcome {
  const { workload, users } = ctx.place;
  const replay = replayedWindow(ctx.load);
  const results = runner.results;
  const lastEndMs = Math.max(firstSendMs, ...results.map((r) => r.endMs));
  const lastSendMs = Math.max(firstSendMs, ...results.map((r) => r.raw.startMs));
  const samples = [...results]
    .sort((a, b) => a.index - b.index)
    .map((r) =>
      toSample(r.raw, ctx.levelNumber, r.index, ctx.origin, {
        turn: r.turn,
        scheduledMs: r.scheduledMs,
        reusablePromptTokens: replay?.reusablePromptTokens[r.index] ?? null,
      }),
    );
  // The judged window opens once the first N requests are out: sending them one after another
  // is the ramp of the method.
  const sendTimes = results.map((r) => r.raw.startMs).sort((a, b) => a - b);
  // A kind without N has no ramp (its schedule describes the level): its window opens at its first send.
  const rampEndMs = sendTimes[Math.min(users ?? 1, sendTimes.length) - 1] ?? firstSendMs;
  const measured = lastSendMs > rampEndMs;
  const inFlight = trackIntervals(results.map((r) => [r.raw.startMs, r.endMs]));
  // A worker waiting by design (a 429's wait, a reader's think time) is not a client falling behind.
  const waiting = trackIntervals([...runner.waits, ...runner.thinks]);
  const level = summarizeLevel({
    level: ctx.levelNumber,
    load: documentLoad(ctx.load),
    samples,
    wallTimeMs: lastEndMs - firstSendMs,
    steadyWindow: measured
      ? {
          outputTokens: tokensWithin(results, rampEndMs, lastSendMs),
          ms: lastSendMs - rampEndMs,
          completions: results.filter((r) => r.raw.outcome === "ok" && r.endMs > rampEndMs && r.endMs <= lastSendMs)
            .length,
        }
      : null,
    // A search's look decided it: its sends stopped before the level's count.
    cutAtLook: runner.enough && runner.results.length < runner.count,
    ...describe({ firstSendMs, lastSendMs, sendTimes, inFlight, rampEndMs, measured }),
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
