/**
 * @module One worker thread of a level run on several threads: it runs its share of the level's
 * workers (the same worker loop as the main thread, its own StreamingClient and keep-alive agent) and
 * posts every result to the main thread. Indexes and send order come from counters the threads share,
 * so every index is sent once whichever thread takes it; every time posted is on the main thread's
 * scheduler, rebuilt here, so the samples merge into one level.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ClientHealth, watchClientHealth } from "../client/health.ts";
import { type Endpoint, StreamingClient } from "../client/index.ts";
import { performanceScheduler } from "../scheduler/index.ts";
import { type LoopResult, newDebts, runWorkers } from "./loop.ts";
import { poissonGapsMs, runOpenLoop } from "./open-loop.ts";
import { chatRequest, type RequestPlace } from "./request.ts";
import { SharedCounters } from "./shared-counters.ts";

/** Marks the workerData of a level's thread, so this module runs a job only in a thread started for one. */
export const THREAD_JOB_KIND = "kneeboard-level-thread";

/** What a level's thread is given. */
export interface ThreadJob {
  kind: typeof THREAD_JOB_KIND;
  endpoint: Endpoint;
  place: RequestPlace;
  /** Workers of this thread (the level's N split over its threads). */
  workers: number;
  /** How long each of this thread's workers waits before its first send, ms (the level's start spread). */
  firstSendDelaysMs: number[];
  /** Measured requests of the level (Infinity for a timed level). */
  count: number;
  /** The main thread's scheduler as this thread rebuilds it (`Scheduler.threadable`). */
  timeOriginMs: number;
  /** The level's `SharedCounters`. */
  counters: SharedArrayBuffer;
  /** An open-loop level: this thread's stream of the schedule (see `poissonGapsMs`), its share of the rate and of maxInFlight. */
  openLoop?: { ratePerSecond: number; seed: number; level: number; stream: number; maxInFlight: number };
}

/** Messages a thread posts. */
export type ThreadMessage =
  | { type: "ready" }
  | ({ type: "result" } & LoopResult)
  | {
      type: "done";
      health: ClientHealth;
      waits: [number, number][];
      /** An open loop's schedule lags, ms, and whether a send found maxInFlight in flight. */
      lagsMs?: number[];
      maxInFlightHit?: boolean;
    }
  | { type: "error"; message: string };

/**
 * Runs a thread's share of the level once `go` resolves with the level's end (every thread loaded, so
 * the level's streams start together); `post` carries its messages to the main thread.
 */
export async function runThreadJob(
  job: ThreadJob,
  post: (message: ThreadMessage) => void,
  abort: AbortSignal,
  go: Promise<number>,
): Promise<void> {
  const scheduler = performanceScheduler(job.timeOriginMs);
  const client = new StreamingClient(job.endpoint, { scheduler });
  const waits: [number, number][] = [];
  post({ type: "ready" });
  const levelEndMs = await go;
  const health = watchClientHealth();
  const counters = new SharedCounters(job.counters, job.count, abort);
  const send = (index: number) => client.send(chatRequest(job.place, index, false, abort, health));
  const onResult = (result: LoopResult) => {
    post({ type: "result", ...result });
    return true;
  };
  if (job.openLoop) {
    const { ratePerSecond, seed, level, stream, maxInFlight } = job.openLoop;
    const goMs = scheduler.now();
    const open = await runOpenLoop({
      counters,
      scheduler,
      signal: abort,
      gapsMs: poissonGapsMs(ratePerSecond, seed, level, stream),
      maxInFlight,
      durationMs: levelEndMs - goMs,
      send,
      onResult,
    });
    post({ type: "done", health: health.stop(), waits, lagsMs: open.lagsMs, maxInFlightHit: open.maxInFlightHit });
    return;
  }
  await runWorkers({
    debts: newDebts(job.workers),
    counters,
    scheduler,
    signal: abort,
    endMs: () => levelEndMs,
    send,
    onResult,
    onWait: (fromMs, toMs) => waits.push([fromMs, toMs]),
    firstSendDelayMs: (worker) => job.firstSendDelaysMs[worker] ?? 0,
  });
  post({ type: "done", health: health.stop(), waits });
}

if (parentPort && (workerData as Partial<ThreadJob> | null)?.kind === THREAD_JOB_KIND) {
  const port = parentPort;
  const abort = new AbortController();
  let start = (_levelEndMs: number) => {};
  const go = new Promise<number>((resolve) => {
    start = resolve;
  });
  // { go: levelEndMs } once every thread is ready; "abort" on a stop, a deadline or an early end: requests in flight end now.
  port.on("message", (message: unknown) => {
    if (typeof message === "object" && message !== null && "go" in message) start(Number(message.go));
    if (message === "abort") {
      abort.abort();
      start(Number.NEGATIVE_INFINITY);
    }
  });
  runThreadJob(workerData as ThreadJob, (m) => port.postMessage(m), abort.signal, go)
    .catch((error: unknown) => port.postMessage({ type: "error", message: String(error) } satisfies ThreadMessage))
    .finally(() => port.close());
}
