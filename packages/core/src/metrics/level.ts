/** @module The figures of one level of a sweep (docs/methodology.md, per level): `summarizeLevel`; pure. */
import type { ClientHealth } from "../client/health.ts";
import type { OpenLoopInput } from "../drive/driver.ts";
import { expectsCache, kindFigures, offeredRate } from "../kinds/index.ts";

export type { OpenLoopInput };

import {
  concurrencyOf,
  type InvalidReason,
  type Level,
  type Load,
  type PricingRecord,
  type RequestCounts,
  type Sample,
  type SloRecord,
} from "../run/index.ts";
import { type ConversationInput, cachedShare, conversationFigures } from "./conversation.ts";
import { DEFAULT_SLO, goodput, levelCost, meetsSloOn, sloFigures } from "./cost.ts";
import { distribution } from "./distribution.ts";
import {
  CLIENT_LAG_LIMIT_MS,
  clientDelay,
  EARLY_FAILURE_REQUESTS,
  failuresOf,
  invalidReasonText,
  MAX_CACHED_PROMPT_SHARE,
  MAX_FAILURE_RATE,
  MAX_RATE_LIMITED_RATE,
  MAX_ROUTE_MISMATCH_RATE,
  MIN_ACHIEVED_CONCURRENCY_RATIO,
  MIN_OPEN_LOOP_REQUESTS,
  openRateMarginPerSecond,
  SCHEDULE_LAG_TOLERANCE_MS,
  SCHEDULE_LAG_TOLERANCE_SHARE,
  sentShare,
} from "./validity.ts";

/** What `summarizeLevel` reads: the level's measured samples and what the sweep observed around them. */
export interface LevelInput {
  /** The level's number in its sweep, 1-based (default 1). */
  level?: number;
  /** The load the level offered: N in flight, or an open loop's rate (whose arrivals are `openLoop`). */
  load: Load;
  /** The level's measured samples (warmup excluded), every outcome. */
  samples: Sample[];
  /** First measured send to last measured end, ms. */
  wallTimeMs: number;
  /**
   * The ok requests' output tokens sent within the judged window (ramp end to last send), its length,
   * ms, and the ok requests that ended within it (absent: not counted); null when empty.
   */
  steadyWindow?: { outputTokens: number; ms: number; completions?: number } | null;
  /** A search's look ended the level before its count (its sends stopped). */
  cutAtLook?: boolean;
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
  /** How many first requests (warm-up included) the early end judged (default `EARLY_FAILURE_REQUESTS`): fewer when the level had fewer. */
  earlyRequests?: number;
  /** The client process's own load during the level (see `watchClientHealth`); absent in older callers. */
  clientHealth?: ClientHealth;
  /** Threads the level's measured requests ran on (see `SweepOptions.threads`); absent in older callers. */
  threads?: number;
  /** An open-loop level's arrivals: its validity then rests on the schedule, not on N in flight. */
  openLoop?: OpenLoopInput;
  /** A closed loop's start spread, ms (see the run document's `startSpreadMs`); absent: null. */
  startSpreadMs?: number;
  /** The level's workers held conversations (samples carry `turn`): figures by turn, and a cache is expected, not a flaw. */
  conversation?: ConversationInput;
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

/**
 * Summarizes one concurrency level (docs/methodology.md, per level). Only `ok` samples enter the
 * distributions and the aggregate; the aggregate (tok/s) is null when the wall time is 0 or no
 * sample is ok. Thresholds: `CLIENT_LAG_LIMIT_MS`, `MIN_ACHIEVED_CONCURRENCY_RATIO`, `MAX_ROUTE_MISMATCH_RATE`,
 * `MAX_CACHED_PROMPT_SHARE`; each broken rule gives one `invalid` reason (a code and its figures) and
 * its sentence in `invalidReasons` (`invalidReasonText`). `meetsSlo` reads the SLO's figures (`sloFigures`):
 * the per-stream output p50 and the TTFT p95 (first token, reasoning included) over every request, a
 * failed one counted as a miss; goodput counts the tokens of the ok requests that each met the SLO on
 * their own, times the ok share (`goodput`).
 */
export function summarizeLevel(input: LevelInput): Level {
  const { load, samples, wallTimeMs, achievedConcurrency, eventLoopLagP99Ms } = input;
  // The level's N, for the rules of kinds that hold N users (an open loop keeps no N in flight).
  const concurrency = concurrencyOf(load) ?? 0;
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
  // The client is judged on requests that streamed: a level of instant error replies keeps the loop
  // busy with nothing to bend, and its in-flight count says nothing of the client.
  const streamed = samples.some((s) => s.chunks > 0);
  // Without the finer signals (older callers), the coarse p99 rule stands.
  const lagLimited = streamed && (delay ? delay.reason !== null : eventLoopLagP99Ms > CLIENT_LAG_LIMIT_MS);
  // Fewer requests than N never put N in flight: the workload's doing, not the client's.
  // A trace replay keeps a schedule as an open loop does, at the rate its window makes at the speedup.
  const openRate = offeredRate(load) ?? input.openLoop?.ratePerSecond;
  const open =
    input.openLoop && openRate !== undefined && openRate > 0
      ? { ...input.openLoop, ratePerSecond: openRate }
      : undefined;
  // At N or fewer, every worker sends one request, spread over the start: N are never in flight at once.
  const tooFewRequests =
    concurrency > 1 && input.requestsPerLevel !== undefined && input.requestsPerLevel <= concurrency;
  const concurrencyLimited =
    streamed &&
    concurrency > 0 &&
    !tooFewRequests &&
    achievedConcurrency + (input.waitingConcurrency ?? 0) < MIN_ACHIEVED_CONCURRENCY_RATIO * concurrency;
  // An open loop whose sends left late at p99 did not offer the rate it names: the client fell behind.
  const lag = open ? distribution(open.scheduleLagsMs) : null;
  const scheduleToleranceMs = open
    ? SCHEDULE_LAG_TOLERANCE_MS + (SCHEDULE_LAG_TOLERANCE_SHARE * 1000) / open.ratePerSecond
    : Number.POSITIVE_INFINITY;
  const scheduleLagged = lag?.p99 != null && lag.p99 > scheduleToleranceMs;
  const limited = lagLimited || concurrencyLimited || scheduleLagged;

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
  if (input.endedEarly)
    invalid.push({ code: "ended_early", detail: { firstRequests: input.earlyRequests ?? EARLY_FAILURE_REQUESTS } });
  if (streamed && delay?.reason) invalid.push(delay.reason);
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
  if (scheduleLagged)
    invalid.push({
      code: "client_schedule_lag",
      detail: { scheduleLagP99Ms: lag?.p99 as number, toleranceMs: scheduleToleranceMs },
    });
  if (open?.maxInFlightHit) invalid.push({ code: "max_in_flight", detail: { maxInFlight: open.maxInFlight } });
  // An open loop's rate is measured from its sends: too few measure nothing, and an achieved rate
  // off the asked one beyond the Poisson margin is not the schedule the level names.
  if (open && samples.length < MIN_OPEN_LOOP_REQUESTS)
    invalid.push({
      code: "open_too_few_requests",
      detail: { requests: samples.length, minimum: MIN_OPEN_LOOP_REQUESTS },
    });
  else if (open) {
    const marginPerSecond = openRateMarginPerSecond(open.ratePerSecond, samples.length);
    if (
      open.achievedRatePerSecond === null ||
      Math.abs(open.achievedRatePerSecond - open.ratePerSecond) > marginPerSecond
    )
      invalid.push({
        code: "open_rate_off",
        detail: {
          achievedRatePerSecond: open.achievedRatePerSecond,
          ratePerSecond: open.ratePerSecond,
          marginPerSecond,
        },
      });
  }
  const cachedPromptTokenShare = cachedShare(ok);
  // A trace replay shares prefixes on purpose (its hash_ids), and a conversation re-sends its history:
  // what a cache serves of them is the measure, not a flaw.
  if (
    !expectsCache(load) &&
    !input.conversation &&
    cachedPromptTokenShare !== null &&
    cachedPromptTokenShare > MAX_CACHED_PROMPT_SHARE
  )
    invalid.push({
      code: "cached_prompt",
      detail: { share: cachedPromptTokenShare, limitShare: MAX_CACHED_PROMPT_SHARE },
    });
  const slo = input.slo ?? DEFAULT_SLO;
  const perStreamOutput = distribution(values(ok, (s) => s.outputTokensPerSecond));
  // The SLO is judged over every request, a failed one counted as a miss.
  const forSlo = sloFigures(samples);

  const steady = input.steadyWindow;
  const steadyAggregateOutputTokensPerSecond =
    steady && steady.ms > 0 && ok.length > 0 ? steady.outputTokens / (steady.ms / 1000) : null;
  const headline = headlineOf(
    concurrencyOf(load),
    aggregateOutputTokensPerSecond,
    steadyAggregateOutputTokensPerSecond,
    steady?.completions ?? null,
    input.cutAtLook === true,
  );

  return {
    level: input.level ?? 1,
    load,
    requests,
    aggregateOutputTokensPerSecond,
    steadyAggregateOutputTokensPerSecond,
    steadyCompletions: steady?.completions ?? null,
    headlineAggregateOutputTokensPerSecond: headline?.outputTokensPerSecond ?? null,
    aggregateWindow: headline?.window ?? null,
    wallTimeMs,
    perStream: {
      outputTokensPerSecond: perStreamOutput,
      decodeTokensPerSecond: distribution(values(ok, (s) => s.decodeTokensPerSecond)),
    },
    ttftMs,
    ttftAnswerMs: distribution(values(ok, (s) => s.ttftAnswerMs)),
    prefillTokensPerSecond: distribution(values(ok, (s) => s.prefillTokensPerSecond)),
    e2eMs,
    tpotMs: distribution(values(ok, (s) => s.tpotMs)),
    interChunkMs: distribution(ok.flatMap((s) => s.interChunkMs ?? [])),
    achievedConcurrency,
    // The figures only its kind has, under the kind's name: the registry picks them from these.
    ...kindFigures(load, {
      startSpreadMs: input.startSpreadMs ?? null,
      schedule: {
        achievedRatePerSecond: open?.achievedRatePerSecond ?? null,
        inFlightMean: open?.inFlightMean ?? null,
        inFlightMax: open?.inFlightMax ?? null,
        scheduleLagMs: lag ? { p50: lag.p50, p99: lag.p99 } : null,
      },
      reusablePromptTokenShare: reusableShare(ok),
      conversation: input.conversation ? conversationFigures(ok, input.conversation) : null,
    }),
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
    meetsSlo: forSlo !== null && meetsSloOn(forSlo, slo),
    sloFigures: forSlo,
    goodputOutputTokensPerSecond: goodput(samples, slo, wallTimeMs),
    ...connectionFigures(samples),
    valid: invalid.length === 0,
    invalidReasons: invalid.map(invalidReasonText),
    invalid,
    probe: null,
  };
}

/** The fewest completions a steady window must hold, whatever N (a window at N = 1 or 2 judged on one or two would be noise). */
export const MIN_STEADY_COMPLETIONS = 8;

/**
 * A level's headline aggregate (docs/methodology.md#the-steady-window): with N users in flight, the
 * steady window's (the ramp's end to the last send: all N in flight, no ramp, no drain) when it held
 * at least max(N, `MIN_STEADY_COMPLETIONS`) completions, a full round of N and no fewer than 8; else
 * the whole level's, marked with why. Null for a kind without N (an open loop, a replay), whose
 * aggregate is its headline.
 */
function headlineOf(
  users: number | null,
  whole: number | null,
  steady: number | null,
  completions: number | null,
  cutAtLook: boolean,
): { outputTokensPerSecond: number | null; window: NonNullable<Level["aggregateWindow"]> } | null {
  if (users === null) return null;
  const minimumCompletions = Math.max(users, MIN_STEADY_COMPLETIONS);
  if (steady !== null && completions !== null && completions >= minimumCompletions)
    return { outputTokensPerSecond: steady, window: { window: "steady", reason: null, minimumCompletions } };
  const reason =
    steady === null || completions === null ? "no_steady_window" : cutAtLook ? "cut_at_look" : "too_few_completions";
  return { outputTokensPerSecond: whole, window: { window: "whole_level", reason, minimumCompletions } };
}

/**
 * A level's connection figures over all its samples (a failed request used a connection too): the
 * share on new connections, where TTFT holds a handshake, the stale sockets met, and the requests
 * written twice; null where no sample recorded them (documents stored before they were).
 */
function connectionFigures(samples: Sample[]): {
  newConnectionShare: number | null;
  staleSockets: number | null;
  requestsSentTwice: number | null;
} {
  let recorded = 0;
  let opened = 0;
  let stale: number | null = null;
  let twice: number | null = null;
  for (const s of samples) {
    if (s.sends !== null) twice = (twice ?? 0) + (s.sends > 1 ? 1 : 0);
    if (s.connection !== null) {
      recorded++;
      if (s.connection === "new") opened++;
    }
    if (s.staleSockets !== null) stale = (stale ?? 0) + s.staleSockets;
  }
  return { newConnectionShare: recorded > 0 ? opened / recorded : null, staleSockets: stale, requestsSentTwice: twice };
}

/** Reusable prompt tokens (a trace replay's) / prompt tokens of the ok samples that record both; null when none does. */
function reusableShare(ok: Sample[]): number | null {
  let reusable = 0;
  let prompt = 0;
  let recorded = false;
  for (const s of ok) {
    if (s.reusablePromptTokens === null || s.promptTokens === null) continue;
    recorded = true;
    reusable += s.reusablePromptTokens;
    prompt += s.promptTokens;
  }
  return recorded && prompt > 0 ? reusable / prompt : null;
}
