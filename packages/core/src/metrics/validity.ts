/**
 * @module When a level is valid (docs/methodology.md): the limits and tolerances, and the table of
 * rules (`VALIDITY_RULES`: per code, its limit, the figures it reads, its verdict and its sentence)
 * that `judgeValidity` runs; the measuring client's own delay; pure.
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
function sentShare(count: number, sent: number, limitShare: number) {
  return { count, sent, share: count / sent, limitShare };
}

/** `count` of `sent` when its share is over `limitShare` (none sent: never), else null. */
function overSent(count: number, sent: number, limitShare: number) {
  return sent > 0 && count / sent > limitShare ? sentShare(count, sent, limitShare) : null;
}

/** `x` as a percentage in words: 0.05 gives `5 %`. */
const percent = (x: number) => `${fmt(x * 100)} %`;

/**
 * The figures of a level that the validity rules read, in groups: each rule reads one group and
 * nothing else (its `reads`), so what a rule judges is named where the rule is.
 */
export interface ValidityFigures {
  /** The level's requests by outcome. */
  requests: RequestCounts;
  /** The level ended at once: how many first requests (warm-up included) all failed; null when it did not. */
  earlyEnd: { firstRequests: number } | null;
  /** The coarse client signal, for callers without the finer ones (`finerSignals` false). */
  clientLag: { streamed: boolean; eventLoopLagP99Ms: number; finerSignals: boolean };
  /** The client's own delay (`clientDelayFigures`); null without the finer signals. */
  clientDelay: ClientDelayFigures | null;
  /** The users a closed loop holds, and how many were in flight. */
  workers: {
    streamed: boolean;
    /** N, 0 for a kind that keeps no N in flight. */
    concurrency: number;
    /** The workload's measured requests per level (count levels only). */
    requestsPerLevel: number | null;
    achievedConcurrency: number;
    /** Workers waiting after a 429, by design. */
    waitingConcurrency: number;
  };
  /** A level sent on a schedule (an open loop, a trace replay); null for one that was not. */
  schedule: {
    ratePerSecond: number;
    achievedRatePerSecond: number | null;
    /** How late sends left at p99, ms; null when none was timed. */
    scheduleLagP99Ms: number | null;
    /** `SCHEDULE_LAG_TOLERANCE_MS` + `SCHEDULE_LAG_TOLERANCE_SHARE` of the mean gap, ms. */
    toleranceMs: number;
    maxInFlight: number;
    maxInFlightHit: boolean;
    /** The level's requests (its sends). */
    sends: number;
  } | null;
  /** Cached prompt tokens over the ok samples' prompt tokens, and whether a cache is the measure (a replay, a conversation). */
  cache: { share: number | null; expected: boolean };
}

/** What the client-delay rules read: the client's own delay and the tolerances it is held to. */
export interface ClientDelayFigures {
  /** Some request streamed: the client is judged only then. */
  streamed: boolean;
  /** `READ_DELAY_PER_LOOP_DELAY` x the loop's mean delay, ms. */
  readDelayMs: number;
  /** `FIRST_TOKEN_READ_DELAY_MARGIN` x the first tokens' read delay, ms. */
  firstTokenReadDelayMs: number;
  loopUtilization: number;
  /** `TTFT_TOLERANCE_MS` + `TTFT_TOLERANCE_SHARE` of TTFT p50, ms. */
  ttftToleranceMs: number;
  /** `PER_STREAM_TOLERANCE_SHARE` of e2e p50, ms (infinite without an e2e). */
  perStreamToleranceMs: number;
}

type Detail<C extends InvalidCode> = Extract<InvalidReason, { code: C }>["detail"];

/** One validity rule, as ESLint's rule `meta`: the group of figures it reads, its verdict and its sentence. */
type Rule<C extends InvalidCode> = {
  [G in keyof ValidityFigures]: {
    /** The limit in the words the docs' table of rules (docs/run-document.md#invalid-reasons) gives it; null when the workload or config sets it. */
    limit: string | null;
    /** The group of figures it reads (`ValidityFigures`). */
    reads: G;
    /** Earlier rules whose breaking makes this one moot: it is not judged then (one reason per cause). */
    unless?: readonly InvalidCode[];
    /** The figures behind the broken rule, or null when the level keeps it. */
    judge(figures: ValidityFigures[G]): Detail<C> | null;
    /** The reason in words, as `invalidReasons`, the pages and the CLI show it. */
    sentence(detail: Detail<C>): string;
    /** The opening words of its sentence, for the codes of documents stored before `invalid` was recorded. */
    legacyOpening?: RegExp;
  };
}[keyof ValidityFigures];

/**
 * The rules of a valid level (docs/methodology.md#when-a-level-is-valid), in the order a level's
 * `invalid` lists them: one entry per code (tsc names a code without one), and the one place a
 * reason's English lives, so logic branches on the code and readers still get a sentence.
 */
export const VALIDITY_RULES: { readonly [C in InvalidCode]: Rule<C> } = {
  no_ok_sample: {
    limit: null,
    reads: "requests",
    judge: (r) => (r.ok === 0 ? { sent: r.sent } : null),
    sentence: (d) => `no ok sample among ${d.sent} sent`,
    legacyOpening: /^no ok sample/,
  },
  route_mismatch: {
    limit: percent(MAX_ROUTE_MISMATCH_RATE),
    reads: "requests",
    judge: (r) => overSent(r.routeMismatch, r.sent, MAX_ROUTE_MISMATCH_RATE),
    sentence: (d) => overShare("route mismatches", d),
    legacyOpening: /^route mismatches /,
  },
  rate_limited: {
    limit: percent(MAX_RATE_LIMITED_RATE),
    reads: "requests",
    judge: (r) => overSent(r.rateLimited, r.sent, MAX_RATE_LIMITED_RATE),
    sentence: (d) => overShare("rate-limited (429)", d),
    legacyOpening: /^rate-limited \(429\) /,
  },
  failures: {
    limit: percent(MAX_FAILURE_RATE),
    reads: "requests",
    judge: (r) => {
      const over = overSent(failuresOf(r), r.sent, MAX_FAILURE_RATE);
      const { httpError, timeout, network, incomplete } = r;
      return over && { ...over, httpError, timeout, network, incomplete };
    },
    sentence: (d) => `${overShare("failures", d)} (${failureBreakdown(d)})`,
    legacyOpening: /^failures /,
  },
  ended_early: {
    limit: String(EARLY_FAILURE_REQUESTS),
    reads: "earlyEnd",
    judge: (e) => e,
    sentence: (d) => `ended at once: its first ${d.firstRequests} requests (warm-up included) all failed`,
    legacyOpening: /^ended at once/,
  },
  // Without the finer signals (older callers), the coarse p99 rule stands.
  client_lag: {
    limit: `${CLIENT_LAG_LIMIT_MS} ms`,
    reads: "clientLag",
    judge: (c) =>
      c.streamed && !c.finerSignals && c.eventLoopLagP99Ms > CLIENT_LAG_LIMIT_MS
        ? { eventLoopLagP99Ms: c.eventLoopLagP99Ms, limitMs: CLIENT_LAG_LIMIT_MS }
        : null,
    sentence: (d) => `client limited: event loop lag p99 ${fmt(d.eventLoopLagP99Ms)} ms, over ${fmt(d.limitMs)} ms`,
    legacyOpening: /^client limited: event loop lag /,
  },
  // A loop busy over `MAX_LOOP_UTILIZATION` of the time: a backlog grows, every figure drifts.
  client_loop_busy: {
    limit: percent(MAX_LOOP_UTILIZATION),
    reads: "clientDelay",
    judge: (c) =>
      c?.streamed && c.loopUtilization > MAX_LOOP_UTILIZATION
        ? { loopUtilization: c.loopUtilization, limitShare: MAX_LOOP_UTILIZATION }
        : null,
    sentence: (d) =>
      `client limited: event loop busy ${fmt(d.loopUtilization * 100)} % of the time, over ${fmt(d.limitShare * 100)} %`,
    legacyOpening: /^client limited: event loop busy /,
  },
  client_read_delay: {
    limit: `${TTFT_TOLERANCE_MS} ms + ${percent(TTFT_TOLERANCE_SHARE)}`,
    reads: "clientDelay",
    unless: ["client_loop_busy"],
    judge: (c) =>
      c?.streamed && c.readDelayMs > c.ttftToleranceMs
        ? { readDelayMs: c.readDelayMs, toleranceMs: c.ttftToleranceMs }
        : null,
    sentence: (d) =>
      `client limited: reads waited about ${fmt(d.readDelayMs)} ms, over the TTFT tolerance of ${fmt(d.toleranceMs)} ms`,
    legacyOpening: /^client limited: reads waited .* over the TTFT tolerance/,
  },
  client_first_token_delay: {
    limit: `${TTFT_TOLERANCE_MS} ms + ${percent(TTFT_TOLERANCE_SHARE)}`,
    reads: "clientDelay",
    unless: ["client_loop_busy", "client_read_delay"],
    judge: (c) =>
      c?.streamed && c.firstTokenReadDelayMs > c.ttftToleranceMs
        ? { firstTokenReadDelayMs: c.firstTokenReadDelayMs, toleranceMs: c.ttftToleranceMs }
        : null,
    sentence: (d) =>
      `client limited: first tokens' reads waited about ${fmt(d.firstTokenReadDelayMs)} ms, over the TTFT tolerance of ${fmt(d.toleranceMs)} ms`,
    legacyOpening: /^client limited: first tokens' reads waited /,
  },
  client_read_delay_per_stream: {
    limit: percent(PER_STREAM_TOLERANCE_SHARE),
    reads: "clientDelay",
    unless: ["client_loop_busy", "client_read_delay", "client_first_token_delay"],
    judge: (c) =>
      c?.streamed && c.readDelayMs > c.perStreamToleranceMs
        ? {
            readDelayMs: c.readDelayMs,
            toleranceMs: c.perStreamToleranceMs,
            toleranceShare: PER_STREAM_TOLERANCE_SHARE,
          }
        : null,
    sentence: (d) =>
      `client limited: reads waited about ${fmt(d.readDelayMs)} ms, over ${fmt(d.toleranceShare * 100)} % of e2e p50 (${fmt(d.toleranceMs)} ms)`,
    legacyOpening: /^client limited: reads waited .* of e2e p50/,
  },
  // At N or fewer, every worker sends one request, spread over the start: N are never in flight at
  // once. The workload's doing, not the client's.
  too_few_requests: {
    limit: null,
    reads: "workers",
    judge: (w) =>
      w.concurrency > 1 && w.requestsPerLevel !== null && w.requestsPerLevel <= w.concurrency
        ? { requestsPerLevel: w.requestsPerLevel, concurrency: w.concurrency }
        : null,
    sentence: ({ requestsPerLevel, concurrency }) =>
      `${requestsPerLevel} requests for concurrency ${concurrency}: the workload sends at most one request per worker, so ${concurrency} were never in flight at once (requestsPerLevel must be more than N)`,
    legacyOpening: /^\d+ requests for concurrency \d+:/,
  },
  client_concurrency: {
    limit: percent(MIN_ACHIEVED_CONCURRENCY_RATIO),
    reads: "workers",
    unless: ["too_few_requests"],
    judge: (w) =>
      w.streamed &&
      w.concurrency > 0 &&
      w.achievedConcurrency + w.waitingConcurrency < MIN_ACHIEVED_CONCURRENCY_RATIO * w.concurrency
        ? {
            achievedConcurrency: w.achievedConcurrency,
            concurrency: w.concurrency,
            minShare: MIN_ACHIEVED_CONCURRENCY_RATIO,
          }
        : null,
    sentence: (d) =>
      `client limited: achieved concurrency ${fmt(d.achievedConcurrency)}, under ${fmt(d.minShare * 100)} % of ${d.concurrency}`,
    legacyOpening: /^client limited: achieved concurrency /,
  },
  // Sends that left late at p99 did not offer the rate the level names: the client fell behind.
  client_schedule_lag: {
    limit: `${SCHEDULE_LAG_TOLERANCE_MS} ms + ${percent(SCHEDULE_LAG_TOLERANCE_SHARE)}`,
    reads: "schedule",
    judge: (s) =>
      s && s.scheduleLagP99Ms !== null && s.scheduleLagP99Ms > s.toleranceMs
        ? { scheduleLagP99Ms: s.scheduleLagP99Ms, toleranceMs: s.toleranceMs }
        : null,
    sentence: (d) =>
      `client limited: sends left ${fmt(d.scheduleLagP99Ms)} ms late at p99, over the schedule's tolerance of ${fmt(d.toleranceMs)} ms`,
  },
  max_in_flight: {
    limit: null,
    reads: "schedule",
    judge: (s) => (s?.maxInFlightHit ? { maxInFlight: s.maxInFlight } : null),
    sentence: (d) =>
      `${d.maxInFlight} requests were in flight when the next was due (maxInFlight): the endpoint could not keep up with the rate`,
  },
  // A rate is measured from the sends: too few measure nothing, and an achieved rate off the asked
  // one beyond the Poisson margin is not the schedule the level names.
  open_too_few_requests: {
    limit: String(MIN_OPEN_LOOP_REQUESTS),
    reads: "schedule",
    judge: (s) =>
      s && s.sends < MIN_OPEN_LOOP_REQUESTS ? { requests: s.sends, minimum: MIN_OPEN_LOOP_REQUESTS } : null,
    sentence: (d) =>
      `${d.requests} requests at this rate, fewer than ${d.minimum}: too few to measure a rate (raise levelDurationSeconds or requestsPerLevel)`,
  },
  open_rate_off: {
    limit: `${OPEN_RATE_MARGIN_SIGMAS} x`,
    reads: "schedule",
    unless: ["open_too_few_requests"],
    judge: (s) => {
      if (!s) return null;
      const marginPerSecond = openRateMarginPerSecond(s.ratePerSecond, s.sends);
      const { achievedRatePerSecond, ratePerSecond } = s;
      return achievedRatePerSecond === null || Math.abs(achievedRatePerSecond - ratePerSecond) > marginPerSecond
        ? { achievedRatePerSecond, ratePerSecond, marginPerSecond }
        : null;
    },
    sentence: ({ achievedRatePerSecond, ratePerSecond, marginPerSecond }) =>
      `achieved ${achievedRatePerSecond === null ? "no" : fmt(achievedRatePerSecond)} requests/s against the ${fmt(ratePerSecond)} asked, off by more than its Poisson margin of ${fmt(marginPerSecond)}`,
  },
  // A trace replay shares prefixes on purpose (its hash_ids), and a conversation re-sends its history:
  // what a cache serves of them is the measure, not a flaw.
  cached_prompt: {
    limit: percent(MAX_CACHED_PROMPT_SHARE),
    reads: "cache",
    judge: (c) =>
      !c.expected && c.share !== null && c.share > MAX_CACHED_PROMPT_SHARE
        ? { share: c.share, limitShare: MAX_CACHED_PROMPT_SHARE }
        : null,
    sentence: (d) =>
      `cached prompt tokens ${fmt(d.share * 100)} % of the prompt tokens, over ${fmt(d.limitShare * 100)} %: a prompt cache served most of the prompt`,
    legacyOpening: /^cached prompt tokens /,
  },
};

/** A rule with its code, as the loop runs it (the table's types tie each code to its own detail). */
interface AnyRule {
  code: InvalidCode;
  reads: keyof ValidityFigures;
  unless?: readonly InvalidCode[];
  judge(figures: unknown): InvalidReason["detail"] | null;
}

const RULE_ORDER = Object.entries(VALIDITY_RULES).map(([code, rule]) => ({ code, ...rule }) as AnyRule);

/** Runs `rules` in order over `figures`: each broken one gives a reason (a code and its figures), unless an earlier one it names broke. */
function judge(rules: readonly AnyRule[], figures: Partial<ValidityFigures>): InvalidReason[] {
  const invalid: InvalidReason[] = [];
  for (const rule of rules) {
    if (rule.unless?.some((code) => invalid.some((r) => r.code === code))) continue;
    const detail = rule.judge(figures[rule.reads]);
    if (detail !== null) invalid.push({ code: rule.code, detail } as InvalidReason);
  }
  return invalid;
}

/** Why a level is not valid: one reason per broken rule of `VALIDITY_RULES`, in the table's order; empty when valid. */
export function judgeValidity(figures: ValidityFigures): InvalidReason[] {
  return judge(RULE_ORDER, figures);
}

/** An invalid reason in words (its rule's `sentence`), as `invalidReasons`, the pages and the CLI show it. */
export function invalidReasonText(reason: InvalidReason): string {
  return (VALIDITY_RULES[reason.code].sentence as (detail: InvalidReason["detail"]) => string)(reason.detail);
}

/** True for the codes of the measuring client's own limits (`client_...`): the client, not the endpoint, may have bent the level. */
export function isClientReason(code: InvalidCode): boolean {
  return code.startsWith("client_");
}

/**
 * The codes of why a level is not valid. A level stored before `invalid` was recorded (it parses with
 * `invalid` empty) has its codes read from its sentences (each rule's `legacyOpening`): the one place
 * a sentence is read back, so a continued sweep of an old partial document still stops where it
 * should. A sentence no code opens gives none.
 */
export function invalidCodes(level: Pick<Level, "invalid" | "invalidReasons">): InvalidCode[] {
  if (level.invalid.length > 0 || level.invalidReasons.length === 0) return level.invalid.map((r) => r.code);
  return level.invalidReasons.flatMap((text) => {
    const found = RULE_ORDER.find((rule) => VALIDITY_RULES[rule.code].legacyOpening?.test(text));
    return found ? [found.code] : [];
  });
}

/**
 * The client's own delay figures of a level, estimated from its load: the delay a socket read waited
 * (`READ_DELAY_PER_LOOP_DELAY` x the mean loop delay), the first tokens' read delay with its margin,
 * and the tolerances they are held to: 10 ms + 3 % of TTFT p50, and 3 % of e2e p50 (per-stream).
 */
export function clientDelayFigures(
  health: Pick<ClientHealth, "eventLoopLagMeanMs" | "loopUtilization" | "firstTokenReadDelayMs">,
  ttftP50Ms: number | null,
  e2eP50Ms: number | null,
  streamed: boolean,
): ClientDelayFigures {
  return {
    streamed,
    readDelayMs: READ_DELAY_PER_LOOP_DELAY * health.eventLoopLagMeanMs,
    firstTokenReadDelayMs: FIRST_TOKEN_READ_DELAY_MARGIN * (health.firstTokenReadDelayMs ?? 0),
    loopUtilization: health.loopUtilization,
    ttftToleranceMs: TTFT_TOLERANCE_MS + TTFT_TOLERANCE_SHARE * (ttftP50Ms ?? 0),
    perStreamToleranceMs: e2eP50Ms === null ? Infinity : PER_STREAM_TOLERANCE_SHARE * e2eP50Ms,
  };
}

const CLIENT_DELAY_RULES = RULE_ORDER.filter((rule) => rule.reads === "clientDelay");

/**
 * The client's own delay of a level (`clientDelayFigures`), and why it bent the figures, if it did:
 * the first broken rule of those that read it (a loop busy, reads or first tokens' reads past the
 * TTFT tolerance, reads past the per-stream tolerance).
 */
export function clientDelay(
  health: Pick<ClientHealth, "eventLoopLagMeanMs" | "loopUtilization" | "firstTokenReadDelayMs">,
  ttftP50Ms: number | null,
  e2eP50Ms: number | null,
): { readDelayMs: number; firstTokenReadDelayMs: number; reason: InvalidReason | null } {
  const figures = clientDelayFigures(health, ttftP50Ms, e2eP50Ms, true);
  const reason = judge(CLIENT_DELAY_RULES, { clientDelay: figures })[0] ?? null;
  return { readDelayMs: figures.readDelayMs, firstTokenReadDelayMs: figures.firstTokenReadDelayMs, reason };
}
