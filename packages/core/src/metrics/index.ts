/** @module Pure statistics of a sweep (docs/methodology.md): per sample, per level and per run; no I/O, no clock. */
import type { ClientHealth } from "../client/health.ts";
import type {
  Distribution,
  InvalidCode,
  InvalidReason,
  Level,
  LevelCost,
  Outcome,
  PricingRecord,
  RequestCounts,
  Sample,
  SloRecord,
  Stop,
  Summary,
} from "../run/index.ts";

/** A level's client is `limited` when its event loop lag p99 is over this, ms. */
export const CLIENT_LAG_LIMIT_MS = 20;
/**
 * A socket read waits, on average, about this many times the event loop's mean delay: reads come in
 * bursts (every stream's chunk of one decode step at once), so one waits for the others of its burst,
 * where a timer only waits for the rest of the current one. Measured against the reference server's
 * record of its writes (`npm run bench`, test/client-health.test.ts): 1.5 to 4.2 on a loaded 2-core
 * machine; the upper end, so a doubtful level is flagged rather than ranked.
 */
export const READ_DELAY_PER_LOOP_DELAY = 4;
/**
 * The first-token read delay (`ClientHealth.firstTokenReadDelayMs`) is taken this many times before it
 * is held against the TTFT tolerance. Against the reference server's record at N = 1 to 256, idle and
 * with 2 to 6 busy processes on 2 cores (`npm run bench`), it tracked the median TTFT error within
 * about 20 %: the margin keeps a level at its tolerance on the flagged side.
 */
export const FIRST_TOKEN_READ_DELAY_MARGIN = 1.25;
/** A level's client is `limited` when its event loop was busy over this share of the wall time: no slack left, a backlog grows. */
export const MAX_LOOP_UTILIZATION = 0.9;
/** The TTFT error kneeboard promises: within this many ms plus `TTFT_TOLERANCE_SHARE` of TTFT. */
export const TTFT_TOLERANCE_MS = 10;
export const TTFT_TOLERANCE_SHARE = 0.03;
/** The per-stream error kneeboard promises: within this share (0.03 = 3 %). */
export const PER_STREAM_TOLERANCE_SHARE = 0.03;
/** A level's client is `limited` when achieved concurrency is under this share of N (0.9 = 90 %). */
export const MIN_ACHIEVED_CONCURRENCY_RATIO = 0.9;
/** A level is invalid when route mismatches are over this share of sent requests (0.05 = 5 %; exactly 5 % is valid). */
export const MAX_ROUTE_MISMATCH_RATE = 0.05;
/** A level is invalid when rate-limited (429) requests are over this share of sent requests (0.05 = 5 %; exactly 5 % is valid). */
export const MAX_RATE_LIMITED_RATE = 0.05;
/**
 * A level is invalid when other failures (http_error, timeout, network, incomplete) are over this share
 * of sent requests (0.05 = 5 %; exactly 5 % is valid).
 */
export const MAX_FAILURE_RATE = 0.05;
/** A level ends at once when this many of its first requests (warm-up included) all failed. */
export const EARLY_FAILURE_REQUESTS = 4;
/** The knee is where no higher valid level raises aggregate tok/s by more than this share (0.15 = 15 %). */
export const KNEE_GAIN_THRESHOLD = 0.15;
/** A level is invalid when cached prompt tokens are over this share of its prompt tokens (0.5 = 50 %; exactly 50 % is valid). */
export const MAX_CACHED_PROMPT_SHARE = 0.5;
/** The SLO when the workload sets none: 20 tok/s per user, TTFT p95 within 2 s. */
export const DEFAULT_SLO: SloRecord = { minOutputTokensPerSecond: 20, maxTtftMs: 2000 };

/**
 * Percentile `p` (0..1) of ascending `sorted` values by linear interpolation between closest ranks
 * (Hyndman-Fan type 7, as numpy's default and Excel's PERCENTILE.INC): rank h = (n - 1) p, then
 * x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
 */
function percentile(sorted: number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (h - lo) * (b - a);
}

/**
 * The distribution of `values` (in whatever unit they carry): count, mean, min, p50, p90, p95, p99, max.
 * Percentiles interpolate linearly between closest ranks (type 7, see `percentile`). Every figure but
 * `n` is null when there are no values. The input is not modified.
 */
export function distribution(values: number[]): Distribution {
  const n = values.length;
  if (n === 0)
    return {
      n: 0,
      mean: null,
      min: null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      max: null,
    };
  const sorted = [...values].sort((a, b) => a - b);
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n,
    mean: sum / n,
    min: sorted[0] as number,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted[n - 1] as number,
  };
}

/** One content chunk of a stream: when it arrived and how many content (or reasoning) characters it held. */
export interface ContentChunk {
  /** Arrival time, ms, on the same clock as `startMs`. */
  tMs: number;
  /** Content plus reasoning characters in the chunk. */
  chars: number;
}

/** What `deriveSampleFigures` reads: a request's start, its content chunks in arrival order, its token count. */
export interface SampleTimings {
  /** Request start, ms. */
  startMs: number;
  /** Non-empty content chunks in arrival order; role-only, empty, usage and `[DONE]` chunks excluded. */
  contentChunks: ContentChunk[];
  /** Output tokens (usage or chunk count); null when unknown. */
  completionTokens: number | null;
  /** Arrival of the first answer chunk (not reasoning), ms, same clock; null or absent when none came. */
  firstAnswerMs?: number | null;
}

/** The per-request figures of docs/methodology.md, flat, units in the names; null where undefined. */
export interface SampleFigures {
  /** First content chunk minus start, ms; null without chunks. */
  ttftMs: number | null;
  /** First answer chunk (not reasoning) minus start, ms; null when no answer came. */
  ttftAnswerMs: number | null;
  /** Last content chunk minus start, ms; null without chunks. */
  e2eMs: number | null;
  /** completionTokens / (e2eMs / 1000), tok/s; null without tokens or when e2eMs is 0. */
  outputTokensPerSecond: number | null;
  /** Tokens after the first chunk / seconds after the first chunk, tok/s; null with fewer than 2 chunks spread in time. */
  decodeTokensPerSecond: number | null;
  /** (e2eMs - ttftMs) / (completionTokens - 1), ms; null with under 2 tokens or no time after the first chunk. */
  tpotMs: number | null;
  /** Gaps between consecutive content chunks, ms; empty with fewer than 2 chunks. */
  interChunkMs: number[];
}

/**
 * Derives a sample's timing figures from its content chunks (docs/methodology.md, per request).
 * The decode rate cannot see token boundaries, so the first chunk's tokens are estimated by its share
 * of the content characters (`tokens * charsFirst / totalChars`; by its share of chunks when no chunk
 * has characters). `tpotMs` is null, not 0, when all content came in one chunk: nothing was measured after it.
 */
export function deriveSampleFigures(input: SampleTimings): SampleFigures {
  const { startMs, contentChunks: chunks, completionTokens: tokens } = input;
  const first = chunks[0];
  const last = chunks[chunks.length - 1];
  const ttftAnswerMs = input.firstAnswerMs == null ? null : input.firstAnswerMs - startMs;
  if (first === undefined || last === undefined) {
    return {
      ttftMs: null,
      ttftAnswerMs,
      e2eMs: null,
      outputTokensPerSecond: null,
      decodeTokensPerSecond: null,
      tpotMs: null,
      interChunkMs: [],
    };
  }
  const ttftMs = first.tMs - startMs;
  const e2eMs = last.tMs - startMs;
  const decodeMs = last.tMs - first.tMs;
  const interChunkMs: number[] = [];
  for (let i = 1; i < chunks.length; i++)
    interChunkMs.push((chunks[i] as ContentChunk).tMs - (chunks[i - 1] as ContentChunk).tMs);

  const outputTokensPerSecond = tokens !== null && e2eMs > 0 ? tokens / (e2eMs / 1000) : null;

  let decodeTokensPerSecond: number | null = null;
  if (tokens !== null && decodeMs > 0) {
    let totalChars = 0;
    for (const c of chunks) totalChars += c.chars;
    const firstShare = totalChars > 0 ? first.chars / totalChars : 1 / chunks.length;
    decodeTokensPerSecond = (tokens - tokens * firstShare) / (decodeMs / 1000);
  }

  const tpotMs = tokens !== null && tokens > 1 && decodeMs > 0 ? (e2eMs - ttftMs) / (tokens - 1) : null;

  return {
    ttftMs,
    ttftAnswerMs,
    e2eMs,
    outputTokensPerSecond,
    decodeTokensPerSecond,
    tpotMs,
    interChunkMs,
  };
}

/** What `summarizeLevel` reads: the level's measured samples and what the sweep observed around them. */
export interface LevelInput {
  /** N, the requests kept in flight. */
  concurrency: number;
  /** The level's measured samples (warmup excluded), every outcome. */
  samples: Sample[];
  /** First measured send to last measured end, ms. */
  wallTimeMs: number;
  /** Time-weighted mean of requests in flight over the wall time (the sweep's `inFlightTracker`, sweep/in-flight.ts). */
  achievedConcurrency: number;
  /** p99 of the event loop lag during the level, ms. */
  eventLoopLagP99Ms: number;
  /** What one user needs (default `DEFAULT_SLO`): judges `meetsSlo` and goodput. */
  slo?: SloRecord;
  /** The target's declared pricing, for the declared cost; none gives a null declared cost. */
  pricing?: PricingRecord | null;
  /**
   * Time-weighted mean of workers waiting after a 429 over the same window as `achievedConcurrency`
   * (default 0): a worker that waits by design is not a client falling behind.
   */
  waitingConcurrency?: number;
  /** Total time workers waited after 429s, ms (default 0). */
  rateLimitWaitMs?: number;
  /** The workload's measured requests per level (count levels only): under N, N are never in flight. */
  requestsPerLevel?: number;
  /** The level ended at once because its first `EARLY_FAILURE_REQUESTS` requests all failed. */
  endedEarly?: boolean;
  /** The client process's own load during the level (see `watchClientHealth`); absent in older callers. */
  clientHealth?: ClientHealth;
  /** Threads the level's measured requests ran on (see `SweepOptions.threads`); absent in older callers. */
  threads?: number;
}

const COUNT_KEY = {
  ok: "ok",
  rate_limited: "rateLimited",
  route_mismatch: "routeMismatch",
  http_error: "httpError",
  timeout: "timeout",
  network: "network",
  incomplete: "incomplete",
} as const satisfies Record<Sample["outcome"], keyof RequestCounts>;

function values(samples: Sample[], pick: (s: Sample) => number | null): number[] {
  const out: number[] = [];
  for (const s of samples) {
    const v = pick(s);
    if (v !== null) out.push(v);
  }
  return out;
}

/** Formats a number for a reason text: up to one decimal. */
function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** Failures other than 429s and route mismatches: http_error, timeout, network, incomplete. */
function failuresOf(r: RequestCounts): number {
  return r.httpError + r.timeout + r.network + r.incomplete;
}

/** `3 timeout, 1 network`: the non-zero failure counts, in words. */
function failureBreakdown(r: Pick<RequestCounts, "httpError" | "timeout" | "network" | "incomplete">): string {
  return [
    r.httpError && `${r.httpError} http error`,
    r.timeout && `${r.timeout} timeout`,
    r.network && `${r.network} network`,
    r.incomplete && `${r.incomplete} incomplete`,
  ]
    .filter(Boolean)
    .join(", ");
}

/** `<what> N of M sent (x %), over y %`, the words of a share over its limit. */
function overShare(what: string, d: { count: number; sent: number; share: number; limitShare: number }): string {
  return `${what} ${d.count} of ${d.sent} sent (${fmt(d.share * 100)} %), over ${fmt(d.limitShare * 100)} %`;
}

/** `count` of `sent` as the detail of a share over `limitShare`. */
function sentShare(count: number, sent: number, limitShare: number) {
  return { count, sent, share: count / sent, limitShare };
}

/**
 * An invalid reason in words, as `invalidReasons`, the pages and the CLI show it: the one place its
 * English lives, so logic can branch on the code and readers still get a sentence.
 */
export function invalidReasonText(reason: InvalidReason): string {
  switch (reason.code) {
    case "no_ok_sample":
      return `no ok sample among ${reason.detail.sent} sent`;
    case "route_mismatch":
      return overShare("route mismatches", reason.detail);
    case "rate_limited":
      return overShare("rate-limited (429)", reason.detail);
    case "failures":
      return `${overShare("failures", reason.detail)} (${failureBreakdown(reason.detail)})`;
    case "ended_early":
      return `ended at once: its first ${reason.detail.firstRequests} requests (warm-up included) all failed`;
    case "client_lag":
      return `client limited: event loop lag p99 ${fmt(reason.detail.eventLoopLagP99Ms)} ms, over ${fmt(reason.detail.limitMs)} ms`;
    case "client_loop_busy":
      return `client limited: event loop busy ${fmt(reason.detail.loopUtilization * 100)} % of the time, over ${fmt(reason.detail.limitShare * 100)} %`;
    case "client_read_delay":
      return `client limited: reads waited about ${fmt(reason.detail.readDelayMs)} ms, over the TTFT tolerance of ${fmt(reason.detail.toleranceMs)} ms`;
    case "client_first_token_delay":
      return `client limited: first tokens' reads waited about ${fmt(reason.detail.firstTokenReadDelayMs)} ms, over the TTFT tolerance of ${fmt(reason.detail.toleranceMs)} ms`;
    case "client_read_delay_per_stream":
      return `client limited: reads waited about ${fmt(reason.detail.readDelayMs)} ms, over ${fmt(reason.detail.toleranceShare * 100)} % of e2e p50 (${fmt(reason.detail.toleranceMs)} ms)`;
    case "too_few_requests": {
      const { requestsPerLevel, concurrency } = reason.detail;
      return `${requestsPerLevel} requests for concurrency ${concurrency}: ${concurrency} were never in flight at once (requestsPerLevel must be at least N)`;
    }
    case "client_concurrency":
      return `client limited: achieved concurrency ${fmt(reason.detail.achievedConcurrency)}, under ${fmt(reason.detail.minShare * 100)} % of ${reason.detail.concurrency}`;
    case "cached_prompt":
      return `cached prompt tokens ${fmt(reason.detail.share * 100)} % of the prompt tokens, over ${fmt(reason.detail.limitShare * 100)} %: a prompt cache served most of the prompt`;
  }
}

/** True for the codes of the measuring client's own limits (`client_...`): the client, not the endpoint, may have bent the level. */
export function isClientReason(code: InvalidCode): boolean {
  return code.startsWith("client_");
}

/**
 * The opening words of each code's sentence, most specific first, for `invalidCodes` on documents
 * stored before `invalid` was recorded; each is what `invalidReasonText` begins with.
 */
const LEGACY_OPENINGS: readonly [RegExp, InvalidCode][] = [
  [/^no ok sample/, "no_ok_sample"],
  [/^route mismatches /, "route_mismatch"],
  [/^rate-limited \(429\) /, "rate_limited"],
  [/^failures /, "failures"],
  [/^ended at once/, "ended_early"],
  [/^client limited: event loop lag /, "client_lag"],
  [/^client limited: event loop busy /, "client_loop_busy"],
  [/^client limited: reads waited .* over the TTFT tolerance/, "client_read_delay"],
  [/^client limited: first tokens' reads waited /, "client_first_token_delay"],
  [/^client limited: reads waited .* of e2e p50/, "client_read_delay_per_stream"],
  [/^\d+ requests for concurrency \d+:/, "too_few_requests"],
  [/^client limited: achieved concurrency /, "client_concurrency"],
  [/^cached prompt tokens /, "cached_prompt"],
];

/**
 * The codes of why a level is not valid. A level stored before `invalid` was recorded (it parses with
 * `invalid` empty) has its codes read from its sentences: the one place a sentence is read back, so a
 * continued sweep of an old partial document still stops where it should. A sentence no code opens
 * gives none.
 */
export function invalidCodes(level: Pick<Level, "invalid" | "invalidReasons">): InvalidCode[] {
  if (level.invalid.length > 0 || level.invalidReasons.length === 0) return level.invalid.map((r) => r.code);
  return level.invalidReasons.flatMap((text) => {
    const found = LEGACY_OPENINGS.find(([opening]) => opening.test(text));
    return found ? [found[1]] : [];
  });
}

/**
 * Summarizes one concurrency level (docs/methodology.md, per level). Only `ok` samples enter the
 * distributions and the aggregate; the aggregate (tok/s) is null when the wall time is 0 or no
 * sample is ok. Thresholds: `CLIENT_LAG_LIMIT_MS`, `MIN_ACHIEVED_CONCURRENCY_RATIO`, `MAX_ROUTE_MISMATCH_RATE`,
 * `MAX_CACHED_PROMPT_SHARE`; each broken rule gives one `invalid` reason (a code and its figures) and
 * its sentence in `invalidReasons` (`invalidReasonText`). `meetsSlo` reads the per-stream output p50 and the TTFT p95 (first token,
 * reasoning included); goodput counts the tokens of the ok requests that each met the SLO on their own.
 */
export function summarizeLevel(input: LevelInput): Level {
  const { concurrency, samples, wallTimeMs, achievedConcurrency, eventLoopLagP99Ms } = input;
  const requests: RequestCounts = {
    sent: samples.length,
    ok: 0,
    rateLimited: 0,
    routeMismatch: 0,
    httpError: 0,
    timeout: 0,
    network: 0,
    incomplete: 0,
  };
  for (const s of samples) requests[COUNT_KEY[s.outcome]]++;

  const ok = samples.filter((s) => s.outcome === "ok");
  let tokens = 0;
  for (const s of ok) tokens += s.completionTokens ?? 0;
  const aggregateOutputTokensPerSecond = ok.length > 0 && wallTimeMs > 0 ? tokens / (wallTimeMs / 1000) : null;

  const ttftMs = distribution(values(ok, (s) => s.ttftMs));
  const e2eMs = distribution(values(ok, (s) => s.e2eMs));
  const health = input.clientHealth;
  const delay = health ? clientDelay(health, ttftMs.p50, e2eMs.p50) : null;
  // Without the finer signals (older callers), the coarse p99 rule stands.
  const lagLimited = delay ? delay.reason !== null : eventLoopLagP99Ms > CLIENT_LAG_LIMIT_MS;
  // Fewer requests than N never put N in flight: the workload's doing, not the client's.
  const tooFewRequests = input.requestsPerLevel !== undefined && input.requestsPerLevel < concurrency;
  const concurrencyLimited =
    !tooFewRequests &&
    achievedConcurrency + (input.waitingConcurrency ?? 0) < MIN_ACHIEVED_CONCURRENCY_RATIO * concurrency;
  const limited = lagLimited || concurrencyLimited;

  const invalid: InvalidReason[] = [];
  if (ok.length === 0) invalid.push({ code: "no_ok_sample", detail: { sent: requests.sent } });
  if (requests.sent > 0 && requests.routeMismatch / requests.sent > MAX_ROUTE_MISMATCH_RATE)
    invalid.push({
      code: "route_mismatch",
      detail: sentShare(requests.routeMismatch, requests.sent, MAX_ROUTE_MISMATCH_RATE),
    });
  if (requests.sent > 0 && requests.rateLimited / requests.sent > MAX_RATE_LIMITED_RATE)
    invalid.push({
      code: "rate_limited",
      detail: sentShare(requests.rateLimited, requests.sent, MAX_RATE_LIMITED_RATE),
    });
  const failures = failuresOf(requests);
  if (requests.sent > 0 && failures / requests.sent > MAX_FAILURE_RATE) {
    const { httpError, timeout, network, incomplete } = requests;
    invalid.push({
      code: "failures",
      detail: { ...sentShare(failures, requests.sent, MAX_FAILURE_RATE), httpError, timeout, network, incomplete },
    });
  }
  if (input.endedEarly) invalid.push({ code: "ended_early", detail: { firstRequests: EARLY_FAILURE_REQUESTS } });
  if (delay?.reason) invalid.push(delay.reason);
  else if (lagLimited)
    invalid.push({ code: "client_lag", detail: { eventLoopLagP99Ms, limitMs: CLIENT_LAG_LIMIT_MS } });
  if (tooFewRequests)
    invalid.push({
      code: "too_few_requests",
      detail: { requestsPerLevel: input.requestsPerLevel as number, concurrency },
    });
  if (concurrencyLimited)
    invalid.push({
      code: "client_concurrency",
      detail: { achievedConcurrency, concurrency, minShare: MIN_ACHIEVED_CONCURRENCY_RATIO },
    });
  const cachedPromptTokenShare = cachedShare(ok);
  if (cachedPromptTokenShare !== null && cachedPromptTokenShare > MAX_CACHED_PROMPT_SHARE)
    invalid.push({
      code: "cached_prompt",
      detail: { share: cachedPromptTokenShare, limitShare: MAX_CACHED_PROMPT_SHARE },
    });
  const slo = input.slo ?? DEFAULT_SLO;
  const perStreamOutput = distribution(values(ok, (s) => s.outputTokensPerSecond));

  return {
    concurrency,
    requests,
    aggregateOutputTokensPerSecond,
    wallTimeMs,
    perStream: {
      outputTokensPerSecond: perStreamOutput,
      decodeTokensPerSecond: distribution(values(ok, (s) => s.decodeTokensPerSecond)),
    },
    ttftMs,
    ttftAnswerMs: distribution(values(ok, (s) => s.ttftAnswerMs)),
    e2eMs,
    tpotMs: distribution(values(ok, (s) => s.tpotMs)),
    interChunkMs: distribution(ok.flatMap((s) => s.interChunkMs ?? [])),
    achievedConcurrency,
    client: {
      eventLoopLagP99Ms,
      limited,
      ...(input.clientHealth
        ? {
            eventLoopLagMeanMs: input.clientHealth.eventLoopLagMeanMs,
            readDelayMs: delay?.readDelayMs ?? 0,
            firstTokenReadDelayMs: delay?.firstTokenReadDelayMs ?? 0,
            loopUtilization: input.clientHealth.loopUtilization,
            cpuShare: input.clientHealth.cpuShare,
          }
        : {}),
      ...(input.threads !== undefined ? { threads: input.threads } : {}),
    },
    rateLimitWaitMs: input.rateLimitWaitMs ?? 0,
    tokensFromChunks: ok.some((s) => s.tokenSource === "chunks"),
    cachedPromptTokenShare,
    cost: levelCost(ok, aggregateOutputTokensPerSecond, input.pricing ?? null),
    meetsSlo:
      perStreamOutput.p50 !== null &&
      ttftMs.p95 !== null &&
      perStreamOutput.p50 >= slo.minOutputTokensPerSecond &&
      ttftMs.p95 <= slo.maxTtftMs,
    goodputOutputTokensPerSecond: ok.length > 0 && wallTimeMs > 0 ? goodputTokens(ok, slo) / (wallTimeMs / 1000) : null,
    ...connectionFigures(samples),
    valid: invalid.length === 0,
    invalidReasons: invalid.map(invalidReasonText),
    invalid,
  };
}

/**
 * A level's connection figures over all its samples (a failed request used a connection too): the
 * share on new connections, where TTFT holds a handshake, and the stale sockets met; null where no
 * sample recorded them (documents stored before they were).
 */
function connectionFigures(samples: Sample[]): { newConnectionShare: number | null; staleSockets: number | null } {
  let recorded = 0;
  let opened = 0;
  let stale: number | null = null;
  for (const s of samples) {
    if (s.connection !== null) {
      recorded++;
      if (s.connection === "new") opened++;
    }
    if (s.staleSockets !== null) stale = (stale ?? 0) + s.staleSockets;
  }
  return { newConnectionShare: recorded > 0 ? opened / recorded : null, staleSockets: stale };
}

/** Cached prompt tokens / prompt tokens over the ok samples that report both; null when none does. */
function cachedShare(ok: Sample[]): number | null {
  let cached = 0;
  let prompt = 0;
  let reported = false;
  for (const s of ok) {
    if (s.cachedPromptTokens === null || s.promptTokens === null) continue;
    reported = true;
    cached += s.cachedPromptTokens;
    prompt += s.promptTokens;
  }
  return reported && prompt > 0 ? cached / prompt : null;
}

/** Output tokens of the ok samples that each met the SLO: their own output tok/s and their own TTFT. */
function goodputTokens(ok: Sample[], slo: SloRecord): number {
  let tokens = 0;
  for (const s of ok) {
    const fastEnough = s.outputTokensPerSecond !== null && s.outputTokensPerSecond >= slo.minOutputTokensPerSecond;
    const soonEnough = s.ttftMs !== null && s.ttftMs <= slo.maxTtftMs;
    if (fastEnough && soonEnough) tokens += s.completionTokens ?? 0;
  }
  return tokens;
}

/**
 * A level's cost per million output tokens, USD. Metered: the gateway's `costUsd` summed over the ok
 * samples that carry it, over their output tokens. Declared from list prices: the mean ok request's
 * input and output cost per output token (`output + input x promptTokens / completionTokens`, over
 * the samples that report both counts); from an hourly price: `hourlyUsd / (aggregate x 3600)`.
 */
function levelCost(ok: Sample[], aggregate: number | null, pricing: PricingRecord | null): LevelCost {
  let meteredUsd = 0;
  let meteredTokens = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  for (const s of ok) {
    if (s.costUsd !== null && s.completionTokens !== null) {
      meteredUsd += s.costUsd;
      meteredTokens += s.completionTokens;
    }
    if (s.promptTokens !== null && s.completionTokens !== null) {
      promptTokens += s.promptTokens;
      completionTokens += s.completionTokens;
    }
  }
  let declared: number | null = null;
  if (pricing && "hourlyUsd" in pricing) {
    declared = aggregate !== null && aggregate > 0 ? (pricing.hourlyUsd / (aggregate * 3600)) * 1e6 : null;
  } else if (pricing && completionTokens > 0) {
    declared = pricing.outputPerMillionUsd + (pricing.inputPerMillionUsd * promptTokens) / completionTokens;
  }
  return {
    meteredUsdPerMillionOutputTokens: meteredTokens > 0 ? (meteredUsd / meteredTokens) * 1e6 : null,
    declaredUsdPerMillionOutputTokens: declared,
  };
}

/** The stop of the lowest level that calls for one, or null. */
function firstStop(levels: Level[]): Stop | null {
  for (const l of [...levels].sort((a, b) => a.concurrency - b.concurrency)) {
    const stop = levelStop(l);
    if (stop) return stop;
  }
  return null;
}

/**
 * The client's own delay of a level, estimated from its load: the delay a socket read waited
 * (`READ_DELAY_PER_LOOP_DELAY` x the mean loop delay), and why it bent the figures, if it did: the
 * read delay over the TTFT tolerance (10 ms + 3 % of TTFT p50) or over 3 % of e2e p50 (per-stream),
 * or a loop busy over `MAX_LOOP_UTILIZATION` of the time (a backlog grows, every figure drifts).
 */
export function clientDelay(
  health: Pick<ClientHealth, "eventLoopLagMeanMs" | "loopUtilization" | "firstTokenReadDelayMs">,
  ttftP50Ms: number | null,
  e2eP50Ms: number | null,
): { readDelayMs: number; firstTokenReadDelayMs: number; reason: InvalidReason | null } {
  const readDelayMs = READ_DELAY_PER_LOOP_DELAY * health.eventLoopLagMeanMs;
  const firstTokenReadDelayMs = FIRST_TOKEN_READ_DELAY_MARGIN * (health.firstTokenReadDelayMs ?? 0);
  const ttftToleranceMs = TTFT_TOLERANCE_MS + TTFT_TOLERANCE_SHARE * (ttftP50Ms ?? 0);
  const perStreamToleranceMs = e2eP50Ms === null ? Infinity : PER_STREAM_TOLERANCE_SHARE * e2eP50Ms;
  let reason: InvalidReason | null = null;
  if (health.loopUtilization > MAX_LOOP_UTILIZATION)
    reason = {
      code: "client_loop_busy",
      detail: { loopUtilization: health.loopUtilization, limitShare: MAX_LOOP_UTILIZATION },
    };
  else if (readDelayMs > ttftToleranceMs)
    reason = { code: "client_read_delay", detail: { readDelayMs, toleranceMs: ttftToleranceMs } };
  else if (firstTokenReadDelayMs > ttftToleranceMs)
    reason = { code: "client_first_token_delay", detail: { firstTokenReadDelayMs, toleranceMs: ttftToleranceMs } };
  else if (readDelayMs > perStreamToleranceMs)
    reason = {
      code: "client_read_delay_per_stream",
      detail: { readDelayMs, toleranceMs: perStreamToleranceMs, toleranceShare: PER_STREAM_TOLERANCE_SHARE },
    };
  return { readDelayMs, firstTokenReadDelayMs, reason };
}

/** True when `higher` raises aggregate tok/s by more than `KNEE_GAIN_THRESHOLD` over `base`. */
function raisesBeyondKnee(base: number, higher: number): boolean {
  // A ratio, not base * 1.15: 100 * 1.15 is 114.99999999999999 in floating point, which would make exactly +15 % a raise.
  if (base <= 0) return higher > 0;
  return higher / base > 1 + KNEE_GAIN_THRESHOLD;
}

/** What one of a level's first requests ended with, for `levelStop`'s words (warm-up requests have no sample). */
export interface EarlyResult {
  outcome: Outcome;
  httpStatus: number | null;
  error: string | null;
}

const STOP_NOTE = "the sweep ran no higher level";

/**
 * Why the sweep must run no level above this one, or null: the level is invalid because of rate limits
 * (429s over `MAX_RATE_LIMITED_RATE`) or failures (over `MAX_FAILURE_RATE`, or its first requests all
 * failed, code `ended_early`, read with `invalidCodes` so an older stored level counts too). More concurrency cannot make such a level valid. Rate limits win when both
 * hold. `unreachable` when no request of the level got any answer (only network errors and timeouts
 * without an HTTP status); `early` are the level's first results, warm-up included, when the sweep kept them.
 */
export function levelStop(level: Level, early: EarlyResult[] = []): Stop | null {
  if (level.valid) return null;
  const r = level.requests;
  const n = level.concurrency;
  if (r.sent > 0 && r.rateLimited / r.sent > MAX_RATE_LIMITED_RATE)
    return {
      concurrency: n,
      reason: "rate_limited",
      detail: `rate-limited from N=${n}: ${r.rateLimited} of ${r.sent} requests got 429 (${fmt((r.rateLimited / r.sent) * 100)} %, over ${fmt(MAX_RATE_LIMITED_RATE * 100)} %); ${STOP_NOTE}`,
    };
  const failures = failuresOf(r);
  const endedEarly = invalidCodes(level).includes("ended_early");
  if (!(r.sent > 0 && failures / r.sent > MAX_FAILURE_RATE) && !endedEarly) return null;
  const noAnswer = (e: EarlyResult) => e.httpStatus === null && (e.outcome === "network" || e.outcome === "timeout");
  const answeredInLevel = r.ok + r.rateLimited + r.routeMismatch + r.httpError + r.incomplete > 0;
  const unreachable = !answeredInLevel && early.every(noAnswer) && (r.sent > 0 || early.length > 0);
  const firstError = early.find((e) => e.error)?.error ?? null;
  const status = early.find((e) => e.httpStatus !== null)?.httpStatus ?? null;
  const cause = firstError ? `; first error: ${firstError}` : status !== null ? `; HTTP ${status}` : "";
  const counts = r.sent > 0 ? `${failures} of ${r.sent} requests failed (${failureBreakdown(r) || "none"})` : "";
  if (unreachable)
    return {
      concurrency: n,
      reason: "unreachable",
      detail: `unreachable at N=${n}: no request got an answer${counts ? `; ${counts}` : ""}${cause}; ${STOP_NOTE}`,
    };
  return {
    concurrency: n,
    reason: "failures",
    detail: `failing from N=${n}: ${counts || `its first ${EARLY_FAILURE_REQUESTS} requests failed`}${endedEarly && counts ? `, its first ${EARLY_FAILURE_REQUESTS} requests all failed` : ""}${cause}; ${STOP_NOTE}`,
  };
}

/**
 * The headline figures of a run (docs/methodology.md, per run). Only valid levels with an aggregate
 * enter `peak` and the knee; `singleStream` and the baseline of `scalingEfficiency` come from the
 * concurrency-1 level only when it is valid (an invalid level keeps its data in `levels` but is never
 * ranked, so `singleStream` is then null). Rates are shares (0..1) of all sent requests. `stop` is
 * `options.stop` when the sweep gives it, else the first level's `levelStop`.
 *
 * The knee: walking the valid levels in ascending concurrency, the first level L such that no higher
 * valid level's aggregate exceeds L's by more than `KNEE_GAIN_THRESHOLD`. When that L is the top valid
 * level (aggregate still climbing at the top, or a single valid level), `kneeConcurrency` is null and
 * `saturated` false.
 *
 * `capacity` is the highest valid level that meets the SLO (null when none does); `goodputPeak` the
 * valid level with the most goodput (null when no valid level delivered any).
 */
export function summarizeRun(levels: Level[], options: { stop?: Stop | null } = {}): Summary {
  const single = levels.find((l) => l.concurrency === 1 && l.valid && l.requests.ok > 0);
  const singleStream = single
    ? {
        outputTokensPerSecond: single.perStream.outputTokensPerSecond.p50,
        decodeTokensPerSecond: single.perStream.decodeTokensPerSecond.p50,
        ttftP50Ms: single.ttftMs.p50,
        ttftP95Ms: single.ttftMs.p95,
      }
    : null;

  const ranked = levels
    .filter(
      (l): l is Level & { aggregateOutputTokensPerSecond: number } =>
        l.valid && l.aggregateOutputTokensPerSecond !== null,
    )
    .sort((a, b) => a.concurrency - b.concurrency);

  let peakLevel: (typeof ranked)[number] | undefined;
  for (const l of ranked) {
    if (peakLevel === undefined || l.aggregateOutputTokensPerSecond > peakLevel.aggregateOutputTokensPerSecond)
      peakLevel = l;
  }
  const peak = peakLevel
    ? {
        concurrency: peakLevel.concurrency,
        aggregateOutputTokensPerSecond: peakLevel.aggregateOutputTokensPerSecond,
        perStreamOutputTokensPerSecond: peakLevel.perStream.outputTokensPerSecond.p50,
      }
    : null;

  let kneeConcurrency: number | null = null;
  let saturated = false;
  for (let i = 0; i < ranked.length; i++) {
    const base = (ranked[i] as (typeof ranked)[number]).aggregateOutputTokensPerSecond;
    const raised = ranked.slice(i + 1).some((l) => raisesBeyondKnee(base, l.aggregateOutputTokensPerSecond));
    if (raised) continue;
    if (i < ranked.length - 1) {
      kneeConcurrency = (ranked[i] as (typeof ranked)[number]).concurrency;
      saturated = true;
    }
    break;
  }

  const singleAggregate = single?.aggregateOutputTokensPerSecond ?? null;
  const scalingEfficiency =
    peak !== null && singleAggregate !== null && singleAggregate > 0
      ? peak.aggregateOutputTokensPerSecond / (peak.concurrency * singleAggregate)
      : null;

  let sent = 0;
  let ok = 0;
  let rateLimited = 0;
  for (const l of levels) {
    sent += l.requests.sent;
    ok += l.requests.ok;
    rateLimited += l.requests.rateLimited;
  }

  let capacity: number | null = null;
  let goodputPeak: Summary["goodputPeak"] = null;
  for (const l of levels) {
    if (!l.valid) continue;
    if (l.meetsSlo === true && (capacity === null || l.concurrency > capacity)) capacity = l.concurrency;
    const goodput = l.goodputOutputTokensPerSecond ?? 0;
    if (goodput > 0 && (goodputPeak === null || goodput > goodputPeak.goodputOutputTokensPerSecond))
      goodputPeak = { concurrency: l.concurrency, goodputOutputTokensPerSecond: goodput };
  }

  return {
    singleStream,
    peak,
    kneeConcurrency,
    saturated,
    scalingEfficiency,
    errorRate: sent > 0 ? (sent - ok) / sent : 0,
    rateLimitRate: sent > 0 ? rateLimited / sent : 0,
    valid: levels.length > 0 && levels.every((l) => l.valid),
    capacity,
    goodputPeak,
    stop: options.stop !== undefined ? options.stop : firstStop(levels),
  };
}
