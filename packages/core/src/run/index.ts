/**
 * @module The run document (docs/run-document.md): one per target per run, public and versioned.
 * The zod schemas here are the published contract; types share their names.
 */
import { z } from "zod";

import { Outcome } from "../client/result.ts";
import { KIND_FIGURES, Load, loadWords } from "../kinds/index.ts";
import { upgradeRunDocument } from "./upgrade.ts";

/** Earlier versions of the document, read as today's (./upgrade.ts). */
export { upgradeLevelsV1, upgradeLevelsV2, upgradeLevelsV3, upgradeRunDocument } from "./upgrade.ts";

/** Why a request ended the way it did (docs/methodology.md): the client says it, the document records it. */
export { Outcome };

/** A distribution over the ok samples of a level: `{ n, mean, min, p50, p90, p95, p99, max }`. */
export const Distribution = z.object({
  n: z.number().int().nonnegative(),
  mean: z.number().nullable(),
  min: z.number().nullable(),
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  max: z.number().nullable(),
});
export type Distribution = z.infer<typeof Distribution>;

/** A level's kinds' own figures, each kind's defined in its module (kinds/<kind>/) or shared in drive/. */
/** A level's load (one member per kind), its axis, place and words: the kinds' registry's (kinds/index.ts). */
export {
  CacheVerdict,
  ClosedFigures,
  ConversationFigures,
  ConversationTurns,
  concurrencyOf,
  Load,
  type LoadAxis,
  levelSchedule,
  loadAxis,
  loadPosition,
  loadWords,
  OpenFigures,
  ScheduleFigures,
  sameLoad,
  TraceFigures,
  TurnFigures,
  WorkersFigures,
} from "../kinds/index.ts";

/** A level as figures, stops and peaks name it: its number in the sweep and its load. */
const LevelRef = {
  /** The level's number in its sweep, 1-based (level 1 is the lowest load); `levels[].level`. */
  level: z.number().int().positive(),
  /** The load the level offered. */
  load: Load,
};

/** One measured request. Times are ms relative to the run start (monotonic clock). */
export const Sample = z.object({
  /** The number of the level this request belongs to (`levels[].level`). */
  level: z.number().int().positive(),
  /** Index of the request within its level, 0-based, measured requests only. */
  index: z.number().int().nonnegative(),
  /** A conversation's turn the request was, 1-based (docs/methodology.md#conversations); null outside conversations. */
  turn: z.number().int().positive().nullable().default(null),
  outcome: Outcome,
  /** Request start, ms since run start. */
  startMs: z.number(),
  /** First non-empty content (or reasoning) chunk minus request start; null when none came. */
  ttftMs: z.number().nullable(),
  /**
   * First non-empty answer chunk (not reasoning) minus request start; equals ttftMs for a model that
   * does not reason; null when no answer came (and in documents stored before it was recorded).
   */
  ttftAnswerMs: z.number().nullable().default(null),
  /** usage.completion_tokens_details.reasoning_tokens; null when not reported. */
  reasoningTokens: z.number().int().nonnegative().nullable().default(null),
  /**
   * Prompt tokens the route served from its prompt cache, as its usage reports them:
   * `prompt_tokens_details.cached_tokens`, else `cache_read_input_tokens` (Anthropic's spelling), else
   * `prompt_cache_hit_tokens` (DeepSeek's); null when not reported. A unique prompt prefix should keep
   * it 0; a conversation's later turns are what a cache serves.
   */
  cachedPromptTokens: z.number().int().nonnegative().nullable().default(null),
  /** usage.cost in USD where the gateway meters it (OpenRouter); null otherwise. */
  costUsd: z.number().nonnegative().nullable().default(null),
  /** Last content chunk minus request start; null when none came. */
  e2eMs: z.number().nullable(),
  /** Output tokens: from usage, or the content chunk count when the endpoint sent no usage. */
  completionTokens: z.number().int().nonnegative().nullable(),
  tokenSource: z.enum(["usage", "chunks"]).nullable(),
  /** Prompt tokens as reported by usage. */
  promptTokens: z.number().int().nonnegative().nullable(),
  /** completionTokens / (e2eMs / 1000): what one waiting user gets, TTFT included. */
  outputTokensPerSecond: z.number().nullable(),
  /** promptTokens / (ttftMs / 1000): how fast the prompt was taken in, queueing included; null in earlier documents. */
  prefillTokensPerSecond: z.number().nullable().default(null),
  /** Tokens after the first chunk over the time after the first chunk. */
  decodeTokensPerSecond: z.number().nullable(),
  /** (e2eMs - ttftMs) / (completionTokens - 1). */
  tpotMs: z.number().nullable(),
  /** Gaps between consecutive content chunks, ms. */
  interChunkMs: z.array(z.number()).optional(),
  /** Content chunks received. */
  chunks: z.number().int().nonnegative(),
  /**
   * Open loop and trace replay: when the request's send was due, ms from the level's start (its first
   * send's due time); compare with `startMs` to check the schedule was kept. Null for a closed loop
   * and in documents stored before it was recorded.
   */
  scheduledMs: z.number().nullable().default(null),
  /**
   * Trace replay: the prompt tokens of the request's leading `hash_ids` blocks already sent earlier in
   * the level's replay, what a perfect prefix cache could serve. Null for other loads and in documents
   * stored before it was recorded.
   */
  reusablePromptTokens: z.number().int().nonnegative().nullable().default(null),
  responseId: z.string().nullable(),
  /** The provider that served the request, as the response says (gateway field, header or model). */
  servedProvider: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  retryAfterSeconds: z.number().nullable(),
  finishReason: z.string().nullable(),
  /** What went wrong, without secrets. */
  error: z.string().nullable(),
  /**
   * The connection that carried the request (after a re-send, the re-send's): `new`, opened for it
   * (its handshake is inside TTFT), or `reused`, kept alive from an earlier request; null when no
   * socket was assigned, and in documents stored before it was recorded.
   */
  connection: z.enum(["new", "reused"]).nullable().default(null),
  /**
   * Times the request was written to a connection: 1 when sent, 0 when it never left; a request is
   * never written twice (docs/methodology.md, connections). Null in documents stored before it was
   * recorded, when a request whose reused socket failed after its write could be sent again.
   */
  sends: z.number().int().nonnegative().nullable().default(null),
  /**
   * Reused sockets the server had already closed when the request was to go out on them (0 or 1):
   * it then went on a new connection; null in documents stored before it was recorded.
   */
  staleSockets: z.number().int().nonnegative().nullable().default(null),
  /** Send to re-send after a stale socket, ms: its cost, counted inside TTFT; null when none was met. */
  staleSocketMs: z.number().nonnegative().nullable().default(null),
  /** Send (or re-send) to the TCP connection up, DNS lookup included, ms; null when reused or unknown. */
  connectMs: z.number().nonnegative().nullable().default(null),
  /** TCP connection up to the TLS handshake done, ms; null when reused, not TLS, or unknown. */
  tlsMs: z.number().nonnegative().nullable().default(null),
});
export type Sample = z.infer<typeof Sample>;

export const RequestCounts = z.object({
  sent: z.number().int().nonnegative(),
  ok: z.number().int().nonnegative(),
  rateLimited: z.number().int().nonnegative(),
  routeMismatch: z.number().int().nonnegative(),
  httpError: z.number().int().nonnegative(),
  timeout: z.number().int().nonnegative(),
  network: z.number().int().nonnegative(),
  incomplete: z.number().int().nonnegative(),
});
export type RequestCounts = z.infer<typeof RequestCounts>;

/** What one interactive user needs; it defines a level's `meetsSlo`, goodput and a run's capacity. */
export const SloRecord = z.object({
  /** Least per-stream output tok/s a user accepts. */
  minOutputTokensPerSecond: z.number().positive(),
  /** Longest TTFT (p95 over a level) a user accepts, ms; null: no TTFT limit, the SLO is per-stream speed alone. */
  maxTtftMs: z.number().positive().nullable(),
});
export type SloRecord = z.infer<typeof SloRecord>;

/** A target's declared price: list prices of an API route, or a dedicated endpoint billed by the hour. */
export const PricingRecord = z.union([
  z.object({ inputPerMillionUsd: z.number().positive(), outputPerMillionUsd: z.number().positive() }),
  z.object({ hourlyUsd: z.number().positive() }),
]);
export type PricingRecord = z.infer<typeof PricingRecord>;

/**
 * A level's figures for the SLO, over every measured request: a request that did not come back `ok`
 * counts as one that missed it, its TTFT as +Infinity and its output tok/s as 0
 * (docs/methodology.md#the-slo-and-failed-requests). `meetsSlo` reads these; the level's distributions
 * (`ttftMs`, `perStream`) stay over the ok requests alone.
 */
export const SloFigures = z.object({
  /** Measured requests the figures count, every outcome. */
  requests: z.number().int().nonnegative(),
  /** Of those, the requests that did not come back ok: each a miss. */
  failed: z.number().int().nonnegative(),
  /** TTFT p95 over every request, a failed one as +Infinity, ms; null when the p95 falls on (or weighs in) a failed one: +Infinity. */
  ttftP95Ms: z.number().nonnegative().nullable(),
  /** Per-stream output tok/s p50 over every request, a failed one as 0 tok/s. */
  perStreamOutputTokensPerSecondP50: z.number().nonnegative(),
});
export type SloFigures = z.infer<typeof SloFigures>;

/** A level's cost per million output tokens, USD; each null when it cannot be known. */
export const LevelCost = z.object({
  /** Sum of the gateway's metered usage.cost / output tokens x 1e6, over the ok samples it metered. */
  meteredUsdPerMillionOutputTokens: z.number().nonnegative().nullable(),
  /** From the target's pricing: list prices over the level's mean request, or hourly price / aggregate. */
  declaredUsdPerMillionOutputTokens: z.number().nonnegative().nullable(),
});
export type LevelCost = z.infer<typeof LevelCost>;

/**
 * Why a level is not valid, one code per rule (docs/methodology.md#when-a-level-is-valid). Codes of
 * the measuring client's own limits start with `client_`: the level's figures may be bent by the
 * client, not the endpoint.
 */
export const InvalidCode = z.enum([
  "no_ok_sample",
  "route_mismatch",
  "rate_limited",
  "failures",
  "ended_early",
  "client_lag",
  "client_loop_busy",
  "client_read_delay",
  "client_first_token_delay",
  "client_read_delay_per_stream",
  "too_few_requests",
  "client_concurrency",
  "cached_prompt",
  "client_schedule_lag",
  "max_in_flight",
  "open_too_few_requests",
  "open_rate_off",
]);
export type InvalidCode = z.infer<typeof InvalidCode>;

/** A share of sent requests over its limit: `count` of `sent`, `share` = count / sent, over `limitShare`. */
const SentShare = {
  count: z.number().int().nonnegative(),
  sent: z.number().int().positive(),
  share: z.number(),
  limitShare: z.number(),
};

const reason = <C extends InvalidCode, D extends z.ZodRawShape>(code: C, detail: D) =>
  z.object({ code: z.literal(code), detail: z.object(detail) });

/** One reason a level is not valid: its `code` and the figures behind it (`detail`, units in the names). */
export const InvalidReason = z.discriminatedUnion("code", [
  reason("no_ok_sample", { sent: z.number().int().nonnegative() }),
  reason("route_mismatch", SentShare),
  reason("rate_limited", SentShare),
  reason("failures", {
    ...SentShare,
    httpError: z.number().int().nonnegative(),
    timeout: z.number().int().nonnegative(),
    network: z.number().int().nonnegative(),
    incomplete: z.number().int().nonnegative(),
  }),
  reason("ended_early", { firstRequests: z.number().int().positive() }),
  reason("client_lag", { eventLoopLagP99Ms: z.number(), limitMs: z.number() }),
  reason("client_loop_busy", { loopUtilization: z.number(), limitShare: z.number() }),
  reason("client_read_delay", { readDelayMs: z.number(), toleranceMs: z.number() }),
  reason("client_first_token_delay", { firstTokenReadDelayMs: z.number(), toleranceMs: z.number() }),
  reason("client_read_delay_per_stream", {
    readDelayMs: z.number(),
    toleranceMs: z.number(),
    toleranceShare: z.number(),
  }),
  reason("too_few_requests", {
    requestsPerLevel: z.number().int().nonnegative(),
    concurrency: z.number().int().positive(),
  }),
  reason("client_concurrency", {
    achievedConcurrency: z.number(),
    concurrency: z.number().int().positive(),
    minShare: z.number(),
  }),
  reason("cached_prompt", { share: z.number(), limitShare: z.number() }),
  reason("client_schedule_lag", { scheduleLagP99Ms: z.number(), toleranceMs: z.number() }),
  reason("max_in_flight", { maxInFlight: z.number().int().positive() }),
  reason("open_too_few_requests", { requests: z.number().int().nonnegative(), minimum: z.number().int().positive() }),
  reason("open_rate_off", {
    achievedRatePerSecond: z.number().nullable(),
    ratePerSecond: z.number().positive(),
    marginPerSecond: z.number().nonnegative(),
  }),
]);
export type InvalidReason = z.infer<typeof InvalidReason>;

/** How a searched sweep ran a level (docs/run-document.md#probe): its place in the search's order and its SLO decision. */
export const Probe = z.object({
  /** 1 = the first level the search ran; levels stay sorted by load, this is the order they ran. */
  order: z.number().int().positive(),
  /**
   * The SLO decision at the search's stated confidence: both bounds inside the SLO, one outside, or
   * neither after the cap; `not_judged` for a level above a load that already missed, run only for the
   * knee's aggregate (no decision drawn: the SLO is taken to be missed there too).
   */
  decision: z.enum(["meets", "misses", "undecided", "not_judged"]),
  /** Upper confidence bound on TTFT p95, ms (an order statistic of the TTFTs after the ramp); null with too few ok requests. */
  ttftP95UpperMs: z.number().nullable(),
  /** Lower confidence bound on per-stream output tok/s p50 (a t bound on the medians of groups of sends after the ramp); null with fewer than two groups. */
  perStreamP50LowerTokensPerSecond: z.number().nullable(),
  /** Measured requests the decision drew (more near the SLO's boundary, up to the cap). */
  requests: z.number().int().nonnegative(),
});
export type Probe = z.infer<typeof Probe>;

/** A searched answer: its value and the bracket it lies in. */
export const Bracket = z.object({
  /** Capacity: the largest probed load that met the SLO; the knee: the knee's load; null when not found. */
  value: z.number().nullable(),
  /** The answer lies in [lo, hi]. */
  lo: z.number().nullable(),
  hi: z.number().nullable(),
  /**
   * `found`: bracketed to the resolution; `below_from`: already past at `from`; `at_to`: not past at
   * `to`; `undecided`: a level at the boundary stayed undecided; `not_reached`: the search stopped first.
   */
  status: z.enum(["found", "below_from", "at_to", "undecided", "not_reached"]),
});
export type Bracket = z.infer<typeof Bracket>;

/** Why a searched sweep stopped. */
export const SearchStopReason = z.enum([
  "resolved",
  "reached_to",
  "over_saturation",
  "below_from",
  "undecided",
  "failures",
  "rate_limited",
  "unreachable",
  "stopped",
  "budget",
  "client_limited",
]);
export type SearchStopReason = z.infer<typeof SearchStopReason>;

/** A searched sweep's record (docs/run-document.md#search): what it looked for, found, and spent. */
export const SearchRecord = z.object({
  /** The axis searched: a closed loop's (or conversation's) users, or an open loop's requests/s. */
  axis: z.enum(["concurrency", "rate"]),
  from: z.number(),
  to: z.number(),
  resolution: z.number(),
  confidence: z.number(),
  /** Where "meets the SLO" turns into "misses". */
  capacity: Bracket,
  /** The knee along the probed levels (the 15 % rule, as `kneeConcurrency`). */
  knee: Bracket,
  stop: z.object({ reason: SearchStopReason, detail: z.string() }),
  /** Every request the search sent, warm-ups included. */
  requests: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** What the doubling ladder from..to at requestsPerLevel (+ warm-ups) would have sent: the saving's baseline. */
  ladderRequests: z.number().int().nonnegative(),
  /** Requests the search could send at most, warm-ups included (`maxRequests`); absent in documents before it. */
  budget: z.number().int().nonnegative().optional(),
});
export type SearchRecord = z.infer<typeof SearchRecord>;

/** One level of a sweep: one load, held while its requests are measured. */
export const Level = z.object({
  ...LevelRef,
  requests: RequestCounts,
  /** Sum of ok completionTokens / level wall time (first measured send to last measured end), tok/s. */
  aggregateOutputTokensPerSecond: z.number().nullable(),
  /**
   * Output tok/s of the ok requests over the judged window only (from the ramp's end, the first N
   * sends, to the last send), without the drain after it: a level cut short at a search's look has a
   * drain as long as its whole window, and the knee of a search reads this. Null when nothing was sent
   * after the ramp, and in documents before it.
   */
  steadyAggregateOutputTokensPerSecond: z.number().nullable().default(null),
  /** The `ok` requests that ended within the steady window (the ramp's end to the last send); null without one, and in documents before it. */
  steadyCompletions: z.number().int().nonnegative().nullable().default(null),
  /**
   * The level's headline aggregate tok/s, what its peak, knee and scaling efficiency read
   * (docs/methodology.md#the-steady-window): the steady aggregate where the steady window held at
   * least `aggregateWindow.minimumCompletions` completions, else the whole level's, marked. Null for a
   * kind without N in flight (an open loop, a replay: its aggregate is the headline) and in documents
   * before it (`headlineAggregate` reads the whole level's there).
   */
  headlineAggregateOutputTokensPerSecond: z.number().nullable().default(null),
  /** Where the headline aggregate was read, and why not the steady window when it was not; null where `headlineAggregateOutputTokensPerSecond` is. */
  aggregateWindow: z
    .object({
      window: z.enum(["steady", "whole_level"]),
      /**
       * Why the whole level's: `too_few_completions` (the steady window held fewer than the minimum),
       * `cut_at_look` (a search's look ended the level with fewer), `no_steady_window` (nothing was sent
       * after the ramp); null when steady.
       */
      reason: z.enum(["too_few_completions", "cut_at_look", "no_steady_window"]).nullable(),
      /** The completions a steady window must hold: max(N, 8). */
      minimumCompletions: z.number().int().positive(),
    })
    .nullable()
    .default(null),
  /** First measured send to last measured end, ms. */
  wallTimeMs: z.number().nonnegative(),
  perStream: z.object({ outputTokensPerSecond: Distribution, decodeTokensPerSecond: Distribution }),
  ttftMs: Distribution,
  /** TTFT of the answer (reasoning excluded), ms; null in documents stored before it was recorded. */
  ttftAnswerMs: Distribution.nullable().default(null),
  /** Prefill tok/s of the ok samples (prompt tokens / TTFT); null in documents stored before it was recorded. */
  prefillTokensPerSecond: Distribution.nullable().default(null),
  e2eMs: Distribution,
  tpotMs: Distribution,
  interChunkMs: Distribution,
  /** Time-weighted mean of requests in flight over the level's wall time. */
  achievedConcurrency: z.number().nonnegative(),
  /**
   * The figures only the level's load kind has, under the kind's name: `closed` (its start spread),
   * `open` (what its schedule sent), `trace` (the same, and the reuse its trace allows),
   * `conversation` (by turn, and the cache verdict); null under every other kind
   * (docs/run-document.md#a-levels-kind-and-its-figures).
   */
  ...KIND_FIGURES,
  client: z.object({
    eventLoopLagP99Ms: z.number().nonnegative(),
    limited: z.boolean(),
    /** Mean event-loop delay past a 1 ms timer, ms (absent in older runs). */
    eventLoopLagMeanMs: z.number().nonnegative().optional(),
    /** The delay a socket read waited in the client, estimated from the loop delay, ms (absent in older runs). */
    readDelayMs: z.number().nonnegative().optional(),
    /** The delay first tokens' reads waited while requests waited for them, with its margin, ms (absent in older runs). */
    firstTokenReadDelayMs: z.number().nonnegative().optional(),
    /** Share of the level's wall time the client's event loop was busy, 0..1 (absent in older runs). */
    loopUtilization: z.number().nonnegative().optional(),
    /** CPU time of the client process over the level's wall time: share of one core (absent in older runs). */
    cpuShare: z.number().nonnegative().optional(),
    /** Threads the level's measured requests ran on: 1 is the sweep's own, more are worker threads (absent in older runs). */
    threads: z.number().int().positive().optional(),
  }),
  /** Total time workers spent waiting after 429s before their next send, ms (0 in documents written before it was recorded). */
  rateLimitWaitMs: z.number().nonnegative().default(0),
  /** Token counts came from chunk counts for some sample (the endpoint sent no usage). */
  tokensFromChunks: z.boolean(),
  /** Cached prompt tokens / prompt tokens of the ok samples that report both (0..1); null when none reports. */
  cachedPromptTokenShare: z.number().nonnegative().nullable().default(null),
  /** USD per million output tokens: metered by the gateway, and declared from the target's pricing. */
  cost: LevelCost.default({ meteredUsdPerMillionOutputTokens: null, declaredUsdPerMillionOutputTokens: null }),
  /**
   * `sloFigures`' per-stream p50 >= slo.minOutputTokensPerSecond and its TTFT p95 <= slo.maxTtftMs (when
   * set), failed requests counted as misses; null when not judged. Documents stored before `sloFigures`
   * judged the ok requests alone.
   */
  meetsSlo: z.boolean().nullable().default(null),
  /** The SLO's figures over every request, a failed one counted as a miss; null in documents stored before them. */
  sloFigures: SloFigures.nullable().default(null),
  /**
   * Output tokens of ok requests that each met the SLO (own tok/s and TTFT) / wall time, times the
   * share of requests that came back ok (a failed request is a miss, and is charged about an average
   * request's time), tok/s. Documents stored before `sloFigures` have no such factor.
   */
  goodputOutputTokensPerSecond: z.number().nonnegative().nullable().default(null),
  /**
   * Samples on a connection opened for them over samples with a connection recorded (0..1), all
   * outcomes; null when none recorded one (and in documents stored before it was recorded).
   */
  newConnectionShare: z.number().min(0).max(1).nullable().default(null),
  /** Stale sockets the level's samples met (each re-sent on a new connection); null in documents stored before it was recorded. */
  staleSockets: z.number().int().nonnegative().nullable().default(null),
  /** Samples written to a connection more than once (`sends` over 1): 0 by design; null in documents stored before `sends` was recorded. */
  requestsSentTwice: z.number().int().nonnegative().nullable().default(null),
  valid: z.boolean(),
  /** Why the level is not valid, in words (`invalidReasonText` of each of `invalid`); empty when valid. */
  invalidReasons: z.array(z.string()),
  /** Why the level is not valid, as codes and figures; empty when valid, and in documents stored before it was recorded. */
  invalid: z.array(InvalidReason).default([]),
  /** A searched level's order and SLO decision; null for a ladder's levels and in documents stored before searches. */
  probe: Probe.nullable().default(null),
});
export type Level = z.infer<typeof Level>;

/** Why a sweep ran no level above `level`: the first level invalid because of rate limits or failures. */
export const Stop = z.object({
  /** The level after which nothing higher was run, and its load. */
  ...LevelRef,
  /** `rate_limited`: 429s over the limit; `unreachable`: no request was answered at all; `failures`: other failures. */
  reason: z.enum(["rate_limited", "failures", "unreachable"]),
  /** The why, in words. */
  detail: z.string(),
});
export type Stop = z.infer<typeof Stop>;

/** The headline figures of a run (docs/methodology.md, per run). */
export const Summary = z.object({
  /** Level 1's figures; null when level 1 is missing, has no ok sample or is invalid (its data stays in `levels`). */
  singleStream: z
    .object({
      outputTokensPerSecond: z.number().nullable(),
      decodeTokensPerSecond: z.number().nullable(),
      ttftP50Ms: z.number().nullable(),
      ttftP95Ms: z.number().nullable(),
    })
    .nullable(),
  /** The valid level with the highest headline aggregate tok/s (`headlineAggregate`). */
  peak: z
    .object({
      ...LevelRef,
      /** The level's headline aggregate: its steady window's, or its whole level's where `window` says so. */
      aggregateOutputTokensPerSecond: z.number(),
      perStreamOutputTokensPerSecond: z.number().nullable(),
      /** Where the aggregate was read (the level's `aggregateWindow.window`); null for a kind without N, and in documents before it. */
      window: z.enum(["steady", "whole_level"]).nullable().default(null),
    })
    .nullable(),
  /**
   * Closed loop: the lowest concurrency after which no higher level raises aggregate by more than 15 %;
   * null if not saturated, and always null for an open loop (a concurrency knee is a closed-loop figure).
   */
  kneeConcurrency: z.number().int().positive().nullable(),
  /**
   * Open loop only: the lowest offered rate after which no higher rate raises aggregate by more than
   * 15 %, requests/s; null while aggregate still climbs at the top rate. Absent for a closed loop, and
   * in open-loop documents stored before it.
   */
  kneeRequestsPerSecond: z.number().positive().nullable().optional(),
  /** The knee was reached: aggregate stopped climbing before the top level (or rate). */
  saturated: z.boolean(),
  /** Closed loop: aggregate at the peak / (N_peak x single-stream aggregate); null for an open loop. */
  scalingEfficiency: z.number().nullable(),
  /** Non-ok samples / sent, over all levels. */
  errorRate: z.number().nonnegative(),
  /** rate_limited samples / sent, over all levels. */
  rateLimitRate: z.number().nonnegative(),
  /** Every level is valid. */
  valid: z.boolean(),
  /** The highest valid level that meets the SLO: this route serves that many users at once at the SLO; null for an open loop. */
  capacity: z.number().int().positive().nullable().default(null),
  /** Open loop: the highest rate of a valid level that meets the SLO, requests/s ("sustains R requests/s at the SLO"). */
  capacityRequestsPerSecond: z.number().positive().nullable().default(null),
  /**
   * Capacity as the bracket it lies in (docs/methodology.md#capacity-as-a-bracket), in the capacity's
   * unit (users, or requests/s). A ladder's: `[lo, hi)`, lo the highest step that met the SLO (null
   * when none did), hi the next step run above it (the lowest step when none met; null when lo is the
   * top step: not measured above it). A search's: `[lo, hi]` at its `confidence`, as
   * `search.capacity`. Null for a kind without a capacity (a trace replay), and in documents stored
   * before it.
   */
  capacityBracket: z
    .object({
      kind: z.enum(["ladder", "searched"]),
      lo: z.number().nonnegative().nullable(),
      hi: z.number().positive().nullable(),
      /** A search's stated confidence (0..1); null for a ladder's. */
      confidence: z.number().nullable(),
    })
    .nullable()
    .default(null),
  /** The valid level with the most goodput; null when no valid level delivered any. */
  goodputPeak: z
    .object({
      ...LevelRef,
      goodputOutputTokensPerSecond: z.number().positive(),
    })
    .nullable()
    .default(null),
  /** Where and why the sweep stopped before its top level; null when no level was invalid for rate limits or failures. */
  stop: Stop.nullable().default(null),
  /** A searched sweep's brackets, stop and spend; null for a ladder and in documents stored before searches. */
  search: SearchRecord.nullable().default(null),
});
export type Summary = z.infer<typeof Summary>;

export const RouteRecord = z.object({
  gateway: z.enum(["openrouter", "litellm", "direct", "custom"]),
  provider: z.string().optional(),
  deployment: z.string().optional(),
});

/**
 * One canary completion (docs/run-document.md#the-canary): a canary prompt sampled once. `text` is
 * everything the stream generated, reasoning and answer content in the order they came; the
 * same-model test splits it into words (`canaryTokens`).
 */
export const CanaryCompletion = z.object({
  /** The prompt's id in the run's `canary.promptSet` (`canary.prompts[].id`). */
  promptId: z.string(),
  /** The sample's number for its prompt, 0-based. */
  index: z.number().int().nonnegative(),
  outcome: Outcome,
  /** The generated text (reasoning, then answer content); empty when nothing came. */
  text: z.string(),
  /** usage.prompt_tokens as the route reported it; null when not reported. */
  promptTokens: z.number().int().nonnegative().nullable(),
  /** usage.completion_tokens; null when not reported. */
  completionTokens: z.number().int().nonnegative().nullable(),
  finishReason: z.string().nullable(),
  /** What went wrong, without secrets; null when ok. */
  error: z.string().nullable(),
});
export type CanaryCompletion = z.infer<typeof CanaryCompletion>;

/**
 * The canary phase of a run, after its levels: a fixed, versioned set of short prompts, each
 * sampled `samplesPerPrompt` times at `temperature` for at most `maxTokens` tokens, `concurrency` at
 * once. What the same-model test compares routes of one model on.
 */
export const Canary = z.object({
  /** The prompt set's name and version (`canary-v1`): runs are compared on the set they share. */
  promptSet: z.string(),
  /** Sampling temperature of every canary request (1: the model's own distribution). */
  temperature: z.number().min(0),
  /** max_tokens of every canary request. */
  maxTokens: z.number().int().positive(),
  /** Completions asked per prompt. */
  samplesPerPrompt: z.number().int().positive(),
  /** Canary requests in flight at once, at most. */
  concurrency: z.number().int().positive(),
  /** The prompts sent, each as the user message alone. */
  prompts: z.array(z.object({ id: z.string(), text: z.string() })),
  /** Every canary request sent, in the order asked (prompt by prompt within each round). */
  completions: z.array(CanaryCompletion),
  /** The phase's first send to its last end, ms. */
  durationMs: z.number().nonnegative(),
  /** Why the phase ended before every completion was asked (the sweep stopped, its first requests all failed); null when it finished. */
  stopped: z.string().nullable(),
});
export type Canary = z.infer<typeof Canary>;

/** A share of answers with its Wilson 95 % interval (docs/methodology.md#tool-calls). */
export const ToolCallShare = z.object({
  /** Answers that met the measure. */
  successes: z.number().int().nonnegative(),
  /** Answers the measure counts (docs/methodology.md says which). */
  trials: z.number().int().nonnegative(),
  /** successes / trials; null when trials is 0. */
  share: z.number().min(0).max(1).nullable(),
  /** Wilson 95 % interval of the share; null when trials is 0. */
  low: z.number().min(0).max(1).nullable(),
  high: z.number().min(0).max(1).nullable(),
});
export type ToolCallShare = z.infer<typeof ToolCallShare>;

/** The nine tool-call measures, each a share over every answer to the prompts it applies to, a failed request a failure (docs/methodology.md#tool-calls). */
export const ToolCallShares = z.object({
  /** At least one call where the prompt needs one (one-call and parallel prompts). */
  callWhenNeeded: ToolCallShare,
  /** No call where none is needed (no-call prompts). */
  noCallWhenNone: ToolCallShare,
  /** The tools called, as a multiset, are the ones the prompt expects (one-call and parallel prompts). */
  rightTool: ToolCallShare,
  /** A call, and every call's arguments parse as a JSON object (one-call and parallel prompts). */
  argumentsParse: ToolCallShare,
  /** A call, and every call names an offered tool with arguments valid against its schema (one-call and parallel prompts). */
  argumentsValid: ToolCallShare,
  /** Every expected call matched one to one by a call holding the values the prompt fixes (one-call and parallel prompts). */
  argumentValues: ToolCallShare,
  /** Both expected calls present (parallel prompts). */
  parallelBoth: ToolCallShare,
  /** finish_reason `tool_calls` after a call, `stop` or `length` after none (every prompt). */
  finishReason: ToolCallShare,
  /** The answer's text parses as JSON valid against the prompt's schema (structured prompts). */
  structuredOutput: ToolCallShare,
});
export type ToolCallShares = z.infer<typeof ToolCallShares>;

/** One tool-call request of the phase and what came back. */
export const ToolCallAnswer = z.object({
  /** The prompt's id in the run's suite. */
  promptId: z.string(),
  /** The sample's number for its prompt, 0-based. */
  sample: z.number().int().nonnegative(),
  outcome: Outcome,
  httpStatus: z.number().int().nullable(),
  finishReason: z.string().nullable(),
  /** The calls as assembled from the stream's deltas, by `index`. */
  calls: z.array(
    z.object({
      index: z.number().int(),
      id: z.string().nullable(),
      name: z.string().nullable(),
      /** The arguments' text as assembled from the fragments (an object sent by the route is JSON.stringify'd). */
      arguments: z.string(),
    }),
  ),
  /** The route sent `arguments` as a JSON object, not a string (a deviation from the API, counted). */
  argumentsAsObject: z.boolean(),
  /** The answer's text (a structured answer's JSON text, or what the route said instead of calling); null when none came. */
  content: z.string().nullable(),
});
export type ToolCallAnswer = z.infer<typeof ToolCallAnswer>;

/**
 * The tool-call phase of a run (docs/run-document.md#tool-calls), after the levels and the canary:
 * each prompt of a fixed suite asked `samplesPerPrompt` times, with its tools (or its strict JSON
 * schema), and every answer scored.
 */
export const ToolCalls = z.object({
  /** The suite's id and version (`tools-v2`; `tools-v1` in earlier runs): routes are compared on the suite they share. */
  suite: z.string(),
  samplesPerPrompt: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  temperature: z.number().min(0),
  maxTokens: z.number().int().positive(),
  /** `no-tool-support`: the route's first 3 requests with `tools` were all refused (HTTP 400 or 422, or an error saying tools are not supported). */
  support: z.enum(["supported", "no-tool-support"]),
  /** Why no support, in words; null when supported. */
  supportDetail: z.string().nullable(),
  /** Requests sent, and those that did not end ok. */
  requests: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  shares: ToolCallShares,
  answers: z.array(ToolCallAnswer),
  /** Why the phase ended before every answer was asked (the sweep stopped); null when it finished. */
  stopped: z.string().nullable(),
});
export type ToolCalls = z.infer<typeof ToolCalls>;

/** A replayed trace as the run document records it: which file, which window, and its digest. */
export const TraceRecord = z.object({
  /** The trace file's name (its base name, without the folders it sat in). */
  name: z.string(),
  format: z.enum(["mooncake", "burstgpt"]),
  /** SHA-256 of the whole file, hex: the same digest is the same trace. */
  sha256: z.string(),
  /** The window replayed: `start` seconds into the trace, at most `limit` requests (null: all from `start`). */
  start: z.number().nonnegative(),
  limit: z.number().int().positive().nullable(),
  /** Requests in the window, and the span of their timestamps at speedup 1, seconds. */
  requests: z.number().int().positive(),
  durationSeconds: z.number().nonnegative(),
  /** Rows of the window skipped as failures in the source (BurstGPT: 0 response tokens). */
  skipped: z.number().int().nonnegative(),
  /** Prompt tokens one `hash_ids` entry stands for. */
  blockSize: z.number().int().positive(),
  /** Prompt and output tokens of the window's requests, and the share of prompt tokens its `hash_ids` allow from a cache. */
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  reusablePromptTokenShare: z.number().nonnegative(),
});
export type TraceRecord = z.infer<typeof TraceRecord>;

/** The run document as written today (version 4); `RunDocument` reads versions 1, 2 and 3 too. */
export const RunDocumentV4 = z.object({
  schemaVersion: z.literal(4),
  runId: z.string(),
  targetId: z.string(),
  /** The scenario (named workload) the run swept; `chat` in documents stored before scenarios. */
  scenario: z.string().default("chat"),
  label: z.string(),
  model: z.string(),
  /** The model as a reader knows it (config `modelKey` or its default); null in documents stored before it was recorded. */
  modelKey: z.string().nullable().default(null),
  /** The target's declared pricing; null when it has none. */
  pricing: PricingRecord.nullable().default(null),
  baseURL: z.string(),
  route: RouteRecord,
  startedAt: z.string(),
  finishedAt: z.string(),
  /** `complete`: the sweep finished with a valid level; `failed`: it finished with none (issue "exactly once"); `partial`: it did not finish. */
  status: z.enum(["complete", "partial", "failed"]),
  /** Why the run is partial (deadline, signal, internal error). */
  partialReason: z.string().nullable(),
  /** True when the target is a simulated reference target, not a real provider. */
  simulated: z.boolean(),
  harness: z.object({ version: z.string(), node: z.string(), host: z.string(), region: z.string().nullable() }),
  workload: z.record(z.string(), z.unknown()),
  /** The trace a trace-replay run replayed; null for other runs and in documents stored before it was recorded. */
  trace: TraceRecord.nullable().default(null),
  levels: z.array(Level),
  summary: Summary,
  samples: z.array(Sample),
  /**
   * The target was its model's reference route (config `reference: true`) when the run was made: the
   * route the same-model test compares the model's other routes with. Absent: false.
   */
  reference: z.boolean().optional(),
  /** The canary phase (docs/run-document.md#the-canary); absent when it was off, when no level had an answer, and in documents stored before it. */
  canary: Canary.optional(),
  /** The tool-call phase (docs/run-document.md#tool-calls); null when it was off, and in documents stored before it. */
  toolCalls: ToolCalls.nullable().default(null),
});

/**
 * A run document, version 4, read from any version: a document of an earlier version is upgraded first
 * (`upgradeRunDocument`), so every reader of a document sees version 4.
 */
export const RunDocument = z.preprocess(upgradeRunDocument, RunDocumentV4);
export type RunDocument = z.infer<typeof RunDocument>;

/**
 * A level's headline aggregate tok/s and where it was read: its `headlineAggregateOutputTokensPerSecond`
 * where recorded, else (a kind without N, a document before it) its whole level's aggregate, `window`
 * null.
 */
export function headlineAggregate(
  level: Pick<Level, "headlineAggregateOutputTokensPerSecond" | "aggregateWindow" | "aggregateOutputTokensPerSecond">,
): {
  outputTokensPerSecond: number | null;
  window: "steady" | "whole_level" | null;
} {
  if (level.aggregateWindow === null)
    return { outputTokensPerSecond: level.aggregateOutputTokensPerSecond, window: null };
  return { outputTokensPerSecond: level.headlineAggregateOutputTokensPerSecond, window: level.aggregateWindow.window };
}

/** `YYYYMMDDTHHMMSSZ` from an ISO 8601 time, as used in store keys. */
export function compactTimestamp(iso: string): string {
  return new Date(iso)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/** The store key of a run document (docs/run-document.md). */
export function runKey(doc: Pick<RunDocument, "targetId" | "startedAt" | "runId">): string {
  return `runs/${doc.targetId}/${compactTimestamp(doc.startedAt)}-${doc.runId}.json`;
}

/**
 * A stop in a few words, the same on the CLI and the site: `rate-limited from N=8`, `unreachable`,
 * `failing from N=1`; an open loop's names its rate: `rate-limited from 4 req/s`.
 */
export function stopLabel(stop: Stop): string {
  switch (stop.reason) {
    case "rate_limited":
      return `rate-limited from ${loadWords(stop.load)}`;
    case "unreachable":
      return stop.level === 1 ? "unreachable" : `unreachable from ${loadWords(stop.load)}`;
    case "failures":
      return `failing from ${loadWords(stop.load)}`;
  }
}
