/**
 * @module One worker thread of a level run on several threads: it runs its part of the level's
 * driver spec (the same driver as the main thread, its own client) and posts every result to the main
 * thread. Indexes and send order come from counters the threads share, so every index is sent once
 * whichever thread takes it; every time posted is on the main thread's scheduler (rebuilt here in a
 * worker thread, the very one in process), so the samples merge into one level.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ClientHealth, type HealthWatch, watchClientHealth } from "../client/health.ts";
import { type Endpoint, StreamingClient } from "../client/index.ts";
import type { DriveRecord, DriveSpec } from "../drive/driver.ts";
import type { LoopResult } from "../drive/loop.ts";
import { driverOf, type Kind } from "../kinds/index.ts";
import { performanceScheduler, type Scheduler } from "../scheduler/index.ts";
import { chatRequest, type RequestPlace, type RequestSender } from "./request.ts";
import { SharedCounters } from "./shared-counters.ts";

/** Marks the workerData of a level's thread, so this module runs a job only in a thread started for one. */
export const THREAD_JOB_KIND = "kneeboard-level-thread";

/** What a level's thread is given. */
export interface ThreadJob {
  kind: typeof THREAD_JOB_KIND;
  endpoint: Endpoint;
  place: RequestPlace;
  /** This thread's part of the level's driver spec (the driver's `split`). */
  spec: DriveSpec;
  /** The level's `SharedCounters` (its count among them). */
  counters: SharedArrayBuffer;
  /** The main thread may raise the count: a worker with nothing left waits for more (`SharedCounters.more`). */
  growable: boolean;
  /** A worker thread: the main thread's scheduler as it rebuilds it (`Scheduler.threadable`). */
  timeOriginMs?: number;
}

/** What a thread's job runs on: its time, what sends its requests, what watches its load. */
export interface ThreadEnv {
  scheduler: Scheduler;
  client: RequestSender;
  watchHealth: () => HealthWatch;
}

/** Messages a thread posts. */
export type ThreadMessage =
  | { type: "ready" }
  | ({ type: "result" } & LoopResult)
  | {
      type: "done";
      health: ClientHealth;
      /** Waits after 429s and think times, [from, to] on the scheduler's clock. */
      waits: [number, number][];
      thinks: [number, number][];
      record: DriveRecord;
    }
  | { type: "error"; message: string };

/**
 * Runs a thread's part of the level once `go` resolves with the level's end (every thread loaded, so
 * the level's streams start together); `post` carries its messages to the main thread. `counters` are
 * this thread's view of the level's (its `wake` called on the main thread's "wake").
 */
export async function runThreadJob(
  job: ThreadJob,
  post: (message: ThreadMessage) => void,
  abort: AbortSignal,
  go: Promise<number>,
  env: ThreadEnv,
  counters: SharedCounters,
): Promise<void> {
  const waits: [number, number][] = [];
  const thinks: [number, number][] = [];
  post({ type: "ready" });
  const levelEndMs = await go;
  const health = env.watchHealth();
  const record = await driverOf(job.spec.kind as Kind).drive(job.spec, {
    counters,
    scheduler: env.scheduler,
    signal: abort,
    start: () => levelEndMs,
    send: (index, turn) => env.client.send(chatRequest(job.place, index, false, abort, health, turn)),
    onResult: (result) => {
      post({ type: "result", ...result });
      return true;
    },
    onWait: (fromMs, toMs, kind) => (kind === "think" ? thinks : waits).push([fromMs, toMs]),
  });
  post({ type: "done", health: health.stop(), waits, thinks, record });
}

/** A worker thread's environment: the main thread's clock rebuilt, a StreamingClient of its own, the real event loop's health. */
function workerEnv(job: ThreadJob): ThreadEnv {
  const scheduler = performanceScheduler(job.timeOriginMs);
  return { scheduler, client: new StreamingClient(job.endpoint, { scheduler }), watchHealth: watchClientHealth };
}

if (parentPort && (workerData as Partial<ThreadJob> | null)?.kind === THREAD_JOB_KIND) {
  const port = parentPort;
  const job = workerData as ThreadJob;
  const abort = new AbortController();
  let start = (_levelEndMs: number) => {};
  const go = new Promise<number>((resolve) => {
    start = resolve;
  });
  const counters = new SharedCounters(job.counters, abort.signal, job.growable);
  // { go: levelEndMs } once every thread is ready; "abort" on a stop, a deadline or an early end: requests
  // in flight end now; "wake" when the main thread changed the counters.
  port.on("message", (message: unknown) => {
    if (typeof message === "object" && message !== null && "go" in message) start(Number(message.go));
    if (message === "wake") counters.wake();
    if (message === "abort") {
      abort.abort();
      start(Number.NEGATIVE_INFINITY);
    }
  });
  runThreadJob(job, (m) => port.postMessage(m), abort.signal, go, workerEnv(job), counters)
    .catch((error: unknown) => port.postMessage({ type: "error", message: String(error) } satisfies ThreadMessage))
    .finally(() => port.close());
}
