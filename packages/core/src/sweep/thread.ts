/**
 * @module One worker thread of a level run on several threads: it runs its share of the level's
 * closed loop (its own workers, its own StreamingClient and keep-alive agent) and posts every result
 * to the main thread. Request indexes and send order come from counters the main thread shares
 * (`Atomics` on a SharedArrayBuffer), so every index is sent once whichever thread takes it; every
 * time posted is on the main thread's `performance.now()` base, so the samples merge into one level.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ClientHealth, watchClientHealth } from "../client/health.ts";
import { type Endpoint, type RawResult, StreamingClient } from "../client/index.ts";
import { performanceScheduler } from "../scheduler/index.ts";
import { promptFor } from "../workload/index.ts";
import { pool, rateLimitWaitMs, SHARED_NEXT_INDEX, SHARED_SEND_SEQ, SHARED_STOP } from "./loop.ts";

/** Marks the workerData of a level's thread, so this module runs a job only in a thread started for one. */
export const THREAD_JOB_KIND = "kneeboard-level-thread";

/** What a level's thread is given. */
export interface ThreadJob {
  kind: typeof THREAD_JOB_KIND;
  endpoint: Endpoint;
  runId: string;
  concurrency: number;
  promptTokens: number;
  maxTokens: number;
  temperature: number;
  ignoreEos: boolean;
  timeoutMs: number;
  /** Workers of this thread (the level's N split over its threads). */
  workers: number;
  /** Measured requests of the level (Infinity for a timed level). */
  count: number;
  /** The main thread's scheduler as this thread rebuilds it (`Scheduler.threadable`). */
  timeOriginMs: number;
  shared: SharedArrayBuffer;
}

/** Messages a thread posts. */
export type ThreadMessage =
  | { type: "ready" }
  | { type: "result"; index: number; seq: number; raw: RawResult; endMs: number }
  | { type: "done"; health: ClientHealth; rateLimitWaitMs: number; waits: [number, number][] }
  | { type: "error"; message: string };

/**
 * Runs a thread's share of the level once `go` resolves (every thread loaded, so the level's streams
 * start together); `post` carries its messages to the main thread.
 */
export async function runThreadJob(
  job: ThreadJob,
  post: (message: ThreadMessage) => void,
  abort: AbortSignal,
  go: Promise<number>,
): Promise<void> {
  const shared = new Int32Array(job.shared);
  // The main thread's time base, rebuilt here: every time posted is on its clock.
  const clock = performanceScheduler(job.timeOriginMs);
  const client = new StreamingClient(job.endpoint, { scheduler: clock });
  const owed = Array.from({ length: job.workers }, () => ({ streak: 0, waitMs: 0 }));
  const waits: [number, number][] = [];
  let waitedMs = 0;
  const stopped = () => Atomics.load(shared, SHARED_STOP) === 1 || abort.aborted;
  post({ type: "ready" });
  // The end of a timed level on the main thread's clock, ms (Infinity for a counted level), known at the go.
  const levelEndMs = await go;
  const health = watchClientHealth();
  await pool(job.workers, Number.POSITIVE_INFINITY, async (_, worker) => {
    const state = owed[worker] as { streak: number; waitMs: number };
    // No index left: nothing to wait for.
    if (Atomics.load(shared, SHARED_NEXT_INDEX) >= job.count) return false;
    if (state.waitMs > 0) {
      const from = clock.now();
      await clock.sleep(state.waitMs, abort);
      const to = clock.now();
      waits.push([from, to]);
      waitedMs += to - from;
      state.waitMs = 0;
    }
    if (stopped() || clock.now() >= levelEndMs) return false;
    const index = Atomics.add(shared, SHARED_NEXT_INDEX, 1);
    if (index >= job.count) return false;
    const seq = Atomics.add(shared, SHARED_SEND_SEQ, 1);
    const raw = await client.send({
      prompt: promptFor({
        runId: job.runId,
        level: job.concurrency,
        index,
        warmup: false,
        promptTokens: job.promptTokens,
      }),
      maxTokens: job.maxTokens,
      temperature: job.temperature,
      ignoreEos: job.ignoreEos,
      timeoutMs: job.timeoutMs,
      signal: abort,
      firstToken: health,
    });
    const endMs = clock.now();
    if (raw.outcome === "rate_limited") {
      state.streak++;
      state.waitMs = rateLimitWaitMs(raw.retryAfterSeconds, state.streak);
    } else state.streak = 0;
    post({ type: "result", index, seq, raw, endMs });
    return !stopped();
  });
  post({ type: "done", health: health.stop(), rateLimitWaitMs: waitedMs, waits });
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
