/**
 * @module When a level is valid (docs/methodology.md): the limits and tolerances, the invalid reasons
 * (a code and its figures), their sentences and codes, and the measuring client's own delay; pure.
 */
import type { ClientHealth } from "../client/health.ts";
import type { InvalidCode, InvalidReason, Level, RequestCounts } from "../run/index.ts";

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
/** A level is invalid when cached prompt tokens are over this share of its prompt tokens (0.5 = 50 %; exactly 50 % is valid). */
export const MAX_CACHED_PROMPT_SHARE = 0.5;
/** Open loop: how late a send may leave at p99, ms plus a share of the mean gap between sends (1 / rate). */
export const SCHEDULE_LAG_TOLERANCE_MS = 10;
export const SCHEDULE_LAG_TOLERANCE_SHARE = 0.03;
/** Open loop: a level is invalid with fewer requests than this: a rate is not measured on a handful of sends. */
export const MIN_OPEN_LOOP_REQUESTS = 20;
/**
 * Open loop: a level is invalid when its achieved rate is off the asked rate by more than this many
 * standard errors of a Poisson rate estimated from n sends (rate / sqrt(n - 1)): the schedule it
 * ran was not the one it names.
 */
export const OPEN_RATE_MARGIN_SIGMAS = 3;

/** The Poisson margin of an open-loop level's achieved rate: `OPEN_RATE_MARGIN_SIGMAS` x rate / sqrt(sends - 1), requests/s. */
export function openRateMarginPerSecond(ratePerSecond: number, sends: number): number {
  return sends >= 2 ? (OPEN_RATE_MARGIN_SIGMAS * ratePerSecond) / Math.sqrt(sends - 1) : Number.POSITIVE_INFINITY;
}

/** Formats a number for a reason text: up to one decimal. */
export function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** Failures other than 429s and route mismatches: http_error, timeout, network, incomplete. */
export function failuresOf(r: RequestCounts): number {
  return r.httpError + r.timeout + r.network + r.incomplete;
}

/** `3 timeout, 1 network`: the non-zero failure counts, in words. */
export function failureBreakdown(r: Pick<RequestCounts, "httpError" | "timeout" | "network" | "incomplete">): string {
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
export function sentShare(count: number, sent: number, limitShare: number) {
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
      return `${requestsPerLevel} requests for concurrency ${concurrency}: the workload sends at most one request per worker, so ${concurrency} were never in flight at once (requestsPerLevel must be more than N)`;
    }
    case "client_concurrency":
      return `client limited: achieved concurrency ${fmt(reason.detail.achievedConcurrency)}, under ${fmt(reason.detail.minShare * 100)} % of ${reason.detail.concurrency}`;
    case "cached_prompt":
      return `cached prompt tokens ${fmt(reason.detail.share * 100)} % of the prompt tokens, over ${fmt(reason.detail.limitShare * 100)} %: a prompt cache served most of the prompt`;
    case "client_schedule_lag":
      return `client limited: sends left ${fmt(reason.detail.scheduleLagP99Ms)} ms late at p99, over the schedule's tolerance of ${fmt(reason.detail.toleranceMs)} ms`;
    case "max_in_flight":
      return `${reason.detail.maxInFlight} requests were in flight when the next was due (maxInFlight): the endpoint could not keep up with the rate`;
    case "open_too_few_requests":
      return `${reason.detail.requests} requests at this rate, fewer than ${reason.detail.minimum}: too few to measure a rate (raise levelDurationSeconds or requestsPerLevel)`;
    case "open_rate_off": {
      const { achievedRatePerSecond, ratePerSecond, marginPerSecond } = reason.detail;
      return `achieved ${achievedRatePerSecond === null ? "no" : fmt(achievedRatePerSecond)} requests/s against the ${fmt(ratePerSecond)} asked, off by more than its Poisson margin of ${fmt(marginPerSecond)}`;
    }
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
