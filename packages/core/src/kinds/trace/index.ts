/**
 * @module Trace replay (docs/config.md#trace-replay): a recorded window's requests, each sent at its
 * timestamp divided by the level's speedup, never waiting on others, at most `maxInFlight` at once; a
 * level per speedup. Request k of the level is the window's k-th, so it runs on one thread. Its config
 * member, the window it replays, levels, run-document load, words and driver; reading trace files is
 * trace/'s.
 */
import { z } from "zod";
import type { DriveSpec, LevelDriver } from "../../drive/driver.ts";
import { MaxInFlight, Positive, strictlyAscending } from "../../drive/fields.ts";
import type { LoadKind, NoIndexFields } from "../../drive/kind.ts";
import { scheduledLevelTiming } from "../../drive/plan.ts";
import { runSchedule, ScheduleFigures, scheduleFigures } from "../../drive/schedule.ts";
import { number, percent } from "../../drive/words.ts";

/** Trace formats a replay reads (docs/config.md#trace-replay). */
export const TraceFormat = z.enum(["mooncake", "burstgpt"]);
export type TraceFormat = z.infer<typeof TraceFormat>;

/** Speedups of a trace replay, each a level: one number, or a strictly ascending list. */
const Speedups = z.union([
  Positive.transform((speedup) => [speedup]),
  z.array(Positive).min(1).superRefine(strictlyAscending("speedups")),
]);

/** `arrival: { "mode": "trace", "file": ..., "format": ... }`: the replay of a recorded trace, a level per speedup. */
export const TraceArrival = z.strictObject({
  mode: z.literal("trace").meta({
    description:
      "trace: replays a recorded trace, each request sent at its recorded time divided by the level's speedup, never waiting on others.",
  }),
  /** The trace file, relative to the config file. */
  file: z.string().min(1).meta({
    description:
      "The trace file, relative to the config file (deployed, in the config's folder or below), at most 50 MB. Required.",
  }),
  format: TraceFormat.meta({
    description:
      "mooncake: JSON lines with timestamp (ms from the trace's start), input_length, output_length and optional hash_ids; burstgpt: CSV with a header holding Timestamp (s), Request tokens, Response tokens. Required.",
  }),
  /** Each request is sent at its timestamp / speedup; a list makes each speedup a level (default 1). */
  speedup: Speedups.default([1]).meta({
    description:
      "Each request is sent at its recorded time divided by the speedup: a positive number, or a strictly ascending list of them, each a level. Default 1.",
  }),
  /** Seconds into the trace the replayed window starts (default 0). */
  start: z
    .number()
    .nonnegative()
    .default(0)
    .meta({ description: "Where the replayed window starts, seconds into the trace, 0 or more. Default 0." }),
  /** Requests of the window at most (default: all from `start`). */
  limit: z.number().int().positive().optional().meta({
    description: "Requests of the window at most, a positive whole number. Default: all from start to the trace's end.",
  }),
  /** Prompt tokens one `hash_ids` entry stands for (default 512, Mooncake's). */
  blockSize: z.number().int().positive().max(65_536).default(512).meta({
    description:
      "Prompt tokens one hash_ids entry stands for, a whole number from 1 to 65536. Default 512 (Mooncake's).",
  }),
  maxInFlight: MaxInFlight,
});
/** A trace arrival as the config gives it (defaults applied). */
export type TraceArrival = z.infer<typeof TraceArrival>;

/** One recorded request. */
export interface TraceRequest {
  /** When it arrived, ms from the trace's start. */
  timestampMs: number;
  /** Prompt tokens. */
  inputTokens: number;
  /** Output tokens: the request's `max_tokens`. */
  outputTokens: number;
  /** Mooncake's block ids (each `blockSize` prompt tokens), in prompt order; null when the trace has none. */
  hashIds: number[] | null;
}

/** A trace file's requests in time order, and the rows skipped as failures in the source. */
export interface ParsedTrace {
  requests: TraceRequest[];
  /** Timestamps of rows skipped (BurstGPT: 0 response tokens), ms: a window counts its own. */
  skippedMs: number[];
}

/** The window of a trace a run replays, with what a plan and the run document say of it. */
export interface TraceWindow {
  /** The file's base name. */
  name: string;
  format: TraceFormat;
  /** SHA-256 of the whole file, hex. */
  sha256: string;
  bytes: number;
  start: number;
  limit: number | null;
  blockSize: number;
  /** The window's requests in time order; `timestampMs` kept as in the file. */
  requests: TraceRequest[];
  /** Each request's send time at speedup 1, ms from the window's first request. */
  offsetsMs: number[];
  /** Each request's prompt tokens of leading blocks already sent earlier in the window (`reusableTokens`). */
  reusablePromptTokens: number[];
  /** Span of the window's timestamps at speedup 1, seconds. */
  durationSeconds: number;
  inputTokens: number;
  outputTokens: number;
  /** Reusable prompt tokens over all prompt tokens of the window. */
  reusablePromptTokenShare: number;
  /** Rows of the window skipped as failures in the source. */
  skipped: number;
}

/** Loaded trace windows, by `traceKey` of their arrival. */
export type Traces = ReadonlyMap<string, TraceWindow>;

/** What identifies a window: the file and format and which part of it (speedups replay the same window). */
export function traceKey(arrival: Pick<TraceArrival, "file" | "format" | "start" | "limit" | "blockSize">): string {
  return JSON.stringify([arrival.file, arrival.format, arrival.start, arrival.limit ?? null, arrival.blockSize]);
}

/** The loaded window of a trace arrival; throws when it was not loaded (a caller forgot `loadTraces`). */
export function traceOf(traces: Traces | undefined, arrival: TraceArrival): TraceWindow {
  const window = traces?.get(traceKey(arrival));
  if (!window) throw new Error(`the trace ${arrival.file} was not loaded (loadTraces) before the sweep was planned`);
  return window;
}

/** A trace level's load as the sweep drives it: the window's requests at their timestamps / `speedup`. */
export interface TraceLevelLoad {
  kind: "trace";
  speedup: number;
  maxInFlight: number;
  trace: TraceWindow;
}

/** The run document's trace load: the trace's timestamps were divided by `speedup`. */
export const TraceLoad = z.object({
  kind: z.literal("trace"),
  /** The trace's timestamps were divided by this: 2 sends the same requests twice as fast. */
  speedup: z.number().positive(),
});
export type TraceLoad = z.infer<typeof TraceLoad>;

/** A replay's driver spec: each request's send time and the window's rate at the speedup. */
export interface TraceSpec extends DriveSpec {
  kind: "trace";
  /** Each request's send time, ms from the level's start: the window's timestamps divided by the speedup. */
  offsetsMs: number[];
  /** The window's rate at the speedup: its requests after the first over its span, requests/s (0 for a single request). */
  ratePerSecond: number;
  maxInFlight: number;
}

/** The gaps between the offsets, in order: the schedule as the open loop's sender reads it. */
function offsetGapsMs(offsetsMs: number[]): () => number {
  let i = 0;
  return () => {
    i++;
    // Past the last request, no send is ever due.
    return (offsetsMs[i] ?? Number.POSITIVE_INFINITY) - (offsetsMs[i - 1] ?? 0);
  };
}

const traceReplay: LevelDriver<TraceLevelLoad, TraceSpec> = {
  // One request at a time, as an open loop's warm-up: its prompt is no part of the trace.
  warmupWorkers: (_load, warmupRequests) => Math.min(1, warmupRequests),

  prepare: (load) => {
    const offsetsMs = load.trace.offsetsMs.map((ms) => ms / load.speedup);
    const spanMs = offsetsMs.at(-1) ?? 0;
    return {
      kind: "trace",
      offsetsMs,
      ratePerSecond: spanMs > 0 ? (offsetsMs.length - 1) / (spanMs / 1000) : 0,
      maxInFlight: load.maxInFlight,
    };
  },

  async drive(spec, loop) {
    const endMs = loop.start();
    const open = await runSchedule({
      counters: loop.counters,
      scheduler: loop.scheduler,
      signal: loop.signal,
      gapsMs: offsetGapsMs(spec.offsetsMs),
      maxInFlight: spec.maxInFlight,
      durationMs: endMs - loop.scheduler.now(),
      send: loop.send,
      onResult: loop.onResult,
    });
    return { scheduleLagsMs: open.lagsMs, maxInFlightHit: open.maxInFlightHit };
  },

  split: (spec, parts) => {
    // loadThreadBound keeps a replay on one thread: the window's k-th request is the level's k-th send.
    if (parts !== 1) throw new Error("a trace replay runs on one thread");
    return [spec];
  },

  describe: (spec, record, window) => scheduleFigures(spec.ratePerSecond, spec.maxInFlight, record, window),
};

/** A trace replay level's own figures (`level.trace`): what its schedule sent, and the reuse its trace allows. */
export const TraceFigures = z.object({
  ...ScheduleFigures.shape,
  /**
   * `reusablePromptTokens` / prompt tokens of the ok samples that report prompt tokens (0..1), what the
   * trace's `hash_ids` allow from a cache, beside `cachedPromptTokenShare`, what the route reported;
   * null when no sample recorded it (and in documents stored before it was recorded).
   */
  reusablePromptTokenShare: z.number().nonnegative().nullable(),
});
export type TraceFigures = z.infer<typeof TraceFigures>;

/** A replay level's field of the run index: what its hash_ids allow from a cache. */
const TRACE_INDEX = {
  /** A trace replay's reusable prompt tokens over prompt tokens: what its hash_ids allow from a cache; null for other loads and in entries recorded before it was. */
  reusablePromptTokenShare: z.number().nullable().default(null),
};

export const trace: LoadKind<
  { arrival: TraceArrival },
  TraceLevelLoad,
  TraceLoad,
  TraceSpec,
  TraceFigures,
  { schedule: ScheduleFigures; reusablePromptTokenShare: number | null },
  typeof TRACE_INDEX,
  NoIndexFields
> = {
  kind: "trace",
  document: TraceLoad,
  figures: {
    schema: TraceFigures,
    of: ({ schedule, reusablePromptTokenShare }) => ({ ...schedule, reusablePromptTokenShare }),
    schedule: ({ achievedRatePerSecond, inFlightMean, inFlightMax, scheduleLagMs }) => ({
      achievedRatePerSecond,
      inFlightMean,
      inFlightMax,
      scheduleLagMs,
    }),
  },
  index: {
    entry: TRACE_INDEX,
    entryOf: (figures) => ({ reusablePromptTokenShare: figures.reusablePromptTokenShare ?? null }),
    standing: {},
    standingOf: () => ({}),
  },
  axis: "speedup",
  levels: (workload, { requestSeconds, traces }) => {
    const { arrival } = workload;
    const window = traceOf(traces as Traces | undefined, arrival);
    // It sends the window's requests, whatever `requestsPerLevel` says.
    return arrival.speedup.map((speedup, i) => ({
      load: { kind: "trace", speedup, maxInFlight: arrival.maxInFlight, trace: window },
      name: `trace ${window.name} at speedup ${speedup}`,
      level: i + 1,
      ...scheduledLevelTiming(window.durationSeconds / speedup, window.requests.length, null, workload, requestSeconds),
    }));
  },
  record: (load) => ({ kind: "trace", speedup: load.speedup }),
  position: (load) => load.speedup,
  words: (load) => `trace x${load.speedup}`,
  same: () => true,
  users: () => null,
  // Every request's answer once per send, over the window's span at the speedup.
  chunksPerSecond: (load, _perStream, _maxTokens, chunksPerToken) => {
    const seconds = load.trace.durationSeconds / load.speedup;
    return seconds > 0
      ? (load.trace.outputTokens / seconds) * chunksPerToken
      : load.trace.outputTokens * chunksPerToken;
  },
  // Each request is its own recorded one, sent by its place in the window: one thread.
  userLevels: () => null,
  // A replay's levels are speedups of a recorded window: there is no SLO boundary to search for.
  search: () => null,
  // A replay's levels are speedups of its window: a search of N has nothing to search.
  arrivalProblems: () => [],
  searchProblems: ({ concurrency }) =>
    concurrency?.search
      ? [
          {
            at: concurrency.at,
            message:
              "a trace replay's levels are speedups of a recorded window, which cannot be searched: search with a closed loop's concurrency or open arrivals' ratesPerSecond",
          },
        ]
      : [],
  searchedIn: (layers) => layers.rates?.search === true,
  pinned: () => {
    throw new Error("a trace replay's levels cannot be searched");
  },
  threadBound: () => 1,
  // A speedup is neither users nor a rate: a replay has no knee or capacity of its own.
  summary: { knee: null, capacity: null },
  // Its hash_ids share prefixes on purpose.
  expectsCache: true,
  // Its rate is its window's at the speedup, which the level's schedule figures carry.
  offeredRate: () => null,
  // Its peak along the speedups, and how much of the reuse its trace allows the route delivered.
  headline: ({ replayed, peak, cached }) =>
    `trace replay${replayed ? ` of ${replayed.name} (${replayed.requests} requests)` : ""}: peak ${peak}; the trace allows ${percent(replayed?.reusablePromptTokenShare ?? null)} of prompt tokens from a cache, the route reported ${cached}`,
  reportLines: () => [],
  plan: {
    column: "speedup",
    label: (load) => `x${load.speedup}`,
    loop: () => "trace replay (warm-up one at a time)",
    arrival: ({ arrival }) =>
      `, arrival trace (a replay sends each request's own prompt length and max_tokens; maxInFlight ${arrival.maxInFlight})`,
    topLevel: ({ trace, speedup }, f) =>
      `the window's ${number(trace.outputTokens)} output tokens over ${number(trace.durationSeconds / speedup, 1)} s at x${speedup} = ${f.chunks}`,
    // The replayed window in words: its requests, tokens, reusable share, and its duration at each speedup.
    before: (levels) => {
      const trace = levels[0]?.load.trace;
      if (!trace) return [];
      const window = `from ${trace.start} s${trace.limit === null ? "" : `, at most ${trace.limit} requests`}`;
      return [
        `  trace: ${trace.name} (${trace.format}, sha256 ${trace.sha256.slice(0, 12)}..., ${number(trace.bytes / 1024 / 1024, 1)} MB), window ${window}: ${trace.requests.length} requests over ${number(trace.durationSeconds, 1)} s${trace.skipped ? ` (${trace.skipped} rows with 0 response tokens skipped)` : ""}`,
        `  trace tokens: ${number(trace.inputTokens)} prompt, ${number(trace.outputTokens)} output; its hash_ids allow ${number(trace.reusablePromptTokenShare * 100, 1)} % of prompt tokens from a cache (blocks of ${trace.blockSize})`,
        `  trace duration: ${levels.map(({ load }) => `x${load.speedup} ${number(trace.durationSeconds / load.speedup, 1)} s`).join(", ")}`,
      ];
    },
    after: () => [],
  },
  driver: traceReplay,
};
