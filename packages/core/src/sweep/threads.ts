/**
 * @module Threading as a wrapper: `threaded` runs any `LevelDriver` across threads (its spec split
 * by the driver, one part a thread, results handed to the level runner, all stopped on the level's
 * abort). Where the threads run is a `ThreadHost`: worker threads (`workerThreads`), or threads of
 * this process on the level's own scheduler and client (`inProcessThreads`), which tests drive on a
 * manual scheduler for exact numbers.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ClientHealth } from "../client/health.ts";
import type { Endpoint } from "../client/index.ts";
import type { DriveRecord, DriveSpec, LevelDriver } from "../drive/driver.ts";
import type { RequestPlace } from "./request.ts";
import { SharedCounters } from "./shared-counters.ts";
import { runThreadJob, THREAD_JOB_KIND, type ThreadEnv, type ThreadJob, type ThreadMessage } from "./thread.ts";

/** One started thread, from the main thread's side. */
export interface LevelThread {
  /** Every thread is ready: send until the level's end (scheduler ms; Infinity for a counted level). */
  go(levelEndMs: number): void;
  /** The level stopped or ended early: send nothing more, end the requests in flight. */
  abort(): void;
  /** The main thread changed the shared counters (raised the count, stopped the sends, called it final): waiting workers look again. */
  wake(): void;
  /** Resolves once the thread has ended, after its last message. */
  ended: Promise<void>;
  terminate(): Promise<void>;
}

/** Where a level's threads run. */
export interface ThreadHost {
  /** Starts a thread on `job`; its messages (a failure outside the job as an `error` message) go to `onMessage`. */
  start(job: ThreadJob, onMessage: (message: ThreadMessage) => void): LevelThread;
}

/** What `threaded` needs beyond the driver: where, how many, and what each thread sends. */
export interface Threading {
  threads: number;
  host: ThreadHost;
  endpoint: Endpoint;
  place: RequestPlace;
  /** The level's counters across its threads, the main thread's side (`sharedCountersBuffer`: its count, its send order's first place). */
  counters: SharedCounters;
  /** The count may grow (a searched level's `LevelContext.count`): a thread's worker with nothing left waits for more. */
  growable: boolean;
}

/**
 * `driver` run across `threading.threads` threads: each runs one part of the spec (`driver.split`)
 * with its own client, on counters they share. The level's time starts once every thread is loaded.
 * The loop's `send`, `counters` and `debts` are this thread's and go unused: each thread has its own.
 * What the level's runner tells `threading.counters` (a raised count, a stop once a look decided) the
 * threads follow: they are woken after the result that changed it.
 */
export function threaded(driver: LevelDriver, threading: Threading): LevelDriver {
  return {
    ...driver,
    async drive(spec, loop): Promise<DriveRecord> {
      const { threads, host } = threading;
      const { counters } = threading;
      const parts = driver.split(spec, threads);
      const healths: ClientHealth[] = [];
      const lagsMs: number[] = [];
      let maxInFlightHit = false;
      let failure: string | null = null;
      let ready = 0;
      const onMessage = (m: ThreadMessage) => {
        if (m.type === "ready" && ++ready === threads) {
          // Loading a thread takes a while: the level's time starts when all can send.
          const levelEndMs = loop.start();
          for (const thread of started) thread.go(levelEndMs);
        } else if (m.type === "result") {
          const before = counters.changes;
          loop.onResult(m);
          if (counters.changes !== before) for (const thread of started) thread.wake();
        } else if (m.type === "done") {
          healths.push(m.health);
          for (const [fromMs, toMs] of m.waits) loop.onWait(fromMs, toMs, "rate_limit");
          for (const [fromMs, toMs] of m.thinks) loop.onWait(fromMs, toMs, "think");
          lagsMs.push(...m.record.scheduleLagsMs);
          maxInFlightHit ||= m.record.maxInFlightHit;
        } else if (m.type === "error") failure ??= m.message;
      };
      const started: LevelThread[] = parts.map((part: DriveSpec) =>
        host.start(
          {
            kind: THREAD_JOB_KIND,
            endpoint: threading.endpoint,
            place: threading.place,
            spec: part,
            counters: counters.buffer,
            growable: threading.growable,
          },
          onMessage,
        ),
      );
      const stopThreads = () => {
        counters.stop();
        for (const thread of started) thread.abort();
      };
      if (loop.signal.aborted) stopThreads();
      loop.signal.addEventListener("abort", stopThreads, { once: true });
      try {
        await Promise.all(started.map((thread) => thread.ended));
      } finally {
        loop.signal.removeEventListener("abort", stopThreads);
        await Promise.all(started.map((thread) => thread.terminate()));
      }
      if (failure !== null) throw new Error(`a sweep thread failed: ${failure}`);
      return { scheduleLagsMs: lagsMs, maxInFlightHit, threadHealths: healths };
    },
  };
}

/** Worker threads that rebuild the main thread's scheduler from its origin (`Scheduler.threadable`). */
export function workerThreads(timeOriginMs: number): ThreadHost {
  return {
    start(job, onMessage) {
      const worker = startWorker({ ...job, timeOriginMs });
      worker.on("message", onMessage);
      const ended = new Promise<void>((resolve) => {
        worker.on("error", (error) => {
          onMessage({ type: "error", message: String(error) });
          resolve();
        });
        worker.on("exit", () => resolve());
      });
      return {
        go: (levelEndMs) => worker.postMessage({ go: levelEndMs }),
        abort: () => worker.postMessage("abort"),
        wake: () => worker.postMessage("wake"),
        ended,
        terminate: async () => {
          await worker.terminate();
        },
      };
    },
  };
}

/**
 * Threads in this process, each running its job as a worker thread would (shared counters, messages
 * copied and delivered after the current turn) but on `env`'s scheduler, client and health watch: a
 * threaded level on a manual scheduler, in exact numbers.
 */
export function inProcessThreads(env: ThreadEnv): ThreadHost {
  return {
    start(job, onMessage) {
      const abort = new AbortController();
      let start = (_levelEndMs: number) => {};
      const go = new Promise<number>((resolve) => {
        start = resolve;
      });
      const post = (message: ThreadMessage) => {
        const copy = structuredClone(message);
        queueMicrotask(() => onMessage(copy));
      };
      const counters = new SharedCounters(job.counters, abort.signal, job.growable);
      const ended = runThreadJob(job, post, abort.signal, go, env, counters)
        .catch((error: unknown) => post({ type: "error", message: String(error) }))
        // After the messages posted so far have been delivered.
        .then(() => new Promise<void>((resolve) => queueMicrotask(resolve)));
      return {
        go: (levelEndMs) => start(levelEndMs),
        abort: () => {
          abort.abort();
          start(Number.NEGATIVE_INFINITY);
        },
        wake: () => queueMicrotask(() => counters.wake()),
        ended,
        terminate: () => ended,
      };
    },
  };
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

function startWorker(job: ThreadJob): Worker {
  if (!THREAD_MODULE.pathname.endsWith(".ts")) return new Worker(THREAD_MODULE, { workerData: job });
  const boot = `import { register } from ${JSON.stringify(tsxApi())}; register(); await import(${JSON.stringify(THREAD_MODULE.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData: job });
}
