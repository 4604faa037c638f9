/**
 * @module Running a level's measured loop on several worker threads, from the main thread's side:
 * start them, split N over them, say go once all are loaded, hand their results to the level runner
 * and stop them all on the level's abort.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ClientHealth } from "../client/health.ts";
import type { Endpoint } from "../client/index.ts";
import type { LoopResult } from "./loop.ts";
import type { RequestPlace } from "./request.ts";
import { SharedCounters, sharedCountersBuffer } from "./shared-counters.ts";
import { THREAD_JOB_KIND, type ThreadJob, type ThreadMessage } from "./thread.ts";

export interface ThreadedLoop {
  threads: number;
  endpoint: Endpoint;
  place: RequestPlace;
  /** Measured requests (Infinity for a timed level). */
  count: number;
  /** The send order's next place (after the warm-up). */
  firstSeq: number;
  /** How long worker `i` of the level (0 .. N-1) waits before its first send, ms. */
  firstSendDelayMs: (worker: number) => number;
  /** An open-loop level: each thread sends its own Poisson stream at rate / threads, with maxInFlight / threads. */
  openLoop?: { ratePerSecond: number; seed: number; maxInFlight: number };
  /** The main thread's scheduler origin (`Scheduler.threadable`). */
  timeOriginMs: number;
  /** The level's abort: it stops every thread and ends its requests in flight. */
  signal: AbortSignal;
  /** Called once every thread can send; returns the level's end on the scheduler's clock (Infinity when counted). */
  onGo(): number;
  /** Each result as it comes. */
  onResult(result: LoopResult): void;
  onWait(fromMs: number, toMs: number): void;
}

/** What the threads saw: each one's client health, and an open loop's schedule lags. */
export interface ThreadsRecord {
  healths: ClientHealth[];
  lagsMs: number[];
  maxInFlightHit: boolean;
}

/** Runs the measured loop on `loop.threads` threads. */
export async function runOnThreads(loop: ThreadedLoop): Promise<ThreadsRecord> {
  const { threads } = loop;
  const concurrency = loop.place.concurrency;
  const buffer = sharedCountersBuffer(loop.firstSeq);
  const counters = new SharedCounters(buffer, loop.count);
  // The level's workers split over the threads, each thread's a run of consecutive ones.
  const shares = Array.from(
    { length: threads },
    (_, i) => Math.floor(concurrency / threads) + (i < concurrency % threads ? 1 : 0),
  );
  const started = shares.map((workers, i) => {
    const first = shares.slice(0, i).reduce((a, b) => a + b, 0);
    return startThread({
      kind: THREAD_JOB_KIND,
      endpoint: loop.endpoint,
      place: loop.place,
      workers,
      firstSendDelaysMs: Array.from({ length: workers }, (_, w) => loop.firstSendDelayMs(first + w)),
      count: loop.count,
      timeOriginMs: loop.timeOriginMs,
      counters: buffer,
      ...(loop.openLoop
        ? {
            openLoop: {
              ratePerSecond: loop.openLoop.ratePerSecond / threads,
              seed: loop.openLoop.seed,
              level: concurrency,
              stream: i,
              maxInFlight: Math.max(1, Math.floor(loop.openLoop.maxInFlight / threads)),
            },
          }
        : {}),
    });
  });
  const stopThreads = () => {
    counters.stop();
    for (const thread of started) thread.postMessage("abort");
  };
  if (loop.signal.aborted) stopThreads();
  loop.signal.addEventListener("abort", stopThreads, { once: true });
  const healths: ClientHealth[] = [];
  const lagsMs: number[] = [];
  let maxInFlightHit = false;
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
                const levelEndMs = loop.onGo();
                for (const thread of started) thread.postMessage({ go: levelEndMs });
              } else if (m.type === "result") loop.onResult(m);
              else if (m.type === "done") {
                healths.push(m.health);
                for (const [fromMs, toMs] of m.waits) loop.onWait(fromMs, toMs);
                lagsMs.push(...(m.lagsMs ?? []));
                maxInFlightHit ||= m.maxInFlightHit === true;
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
    loop.signal.removeEventListener("abort", stopThreads);
    await Promise.all(started.map((thread) => thread.terminate()));
  }
  if (failure !== null) throw new Error(`a sweep thread failed: ${failure}`);
  return { healths, lagsMs, maxInFlightHit };
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
