/** @module The figures of one level of a sweep (docs/methodology.md, per level): `summarizeLevel`; pure. */
import type { ClientHealth } from "../client/health.ts";
import type { ScheduleInput } from "../drive/driver.ts";
import { expectsCache, kindFigures, offeredRate } from "../kinds/index.ts";

export type { ScheduleInput };

import {
  concurrencyOf,
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
  type ClientDelayFigures,
  clientDelayFigures,
  EARLY_FAILURE_REQUESTS,
  invalidReasonText,
  isClientReason,
  judgeValidity,
  SCHEDULE_LAG_TOLERANCE_MS,
  SCHEDULE_LAG_TOLERANCE_SHARE,
  type ValidityFigures,
} from "./validity.ts";

/** What `summarizeLevel` reads: the level's measured samples and what the sweep observed around them. */
export interface LevelInput {
  /** The level's number in its sweep, 1-based (default 1). */
  level?: number;
  /** The load the level offered: N in flight, or an open loop's rate (sent on the schedule `schedule`). */
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
  /** A level sent on a schedule (an open loop, a trace replay): its validity then rests on the schedule, not on N in flight. */
  schedule?: ScheduleInput;
  /** A closed loop's start spread, ms (see the run document's `startSpreadMs`); absent: null. */
  startSpreadMs?: number;
  /** The level's workers held sessions of turns (a conversation's; samples carry `turn`): figures by turn, and a cache is expected, not a flaw. */
  sessions?: ConversationInput;
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
 * sample is ok. Each broken rule of `VALIDITY_RULES` (`judgeValidity` over `validityFigures`) gives
 * one `invalid` reason (a code and its figures) and its sentence in `invalidReasons`; the client is
 * `limited` when one of them is its own (`isClientReason`). `meetsSlo` reads the SLO's figures
 * (`sloFigures`): the per-stream output p50 and the TTFT p95 (first token, reasoning included) over
 * every request, a failed one counted as a miss; goodput counts the tokens of the ok requests that
 * each met the SLO on their own, times the ok share (`goodput`).
 */
export function summarizeLevel(input: LevelInput): Level {
  const { load, samples, wallTimeMs, achievedConcurrency, eventLoopLagP99Ms } = input;
  const requests = countRequests(samples);
  const ok = samples.filter((s) => s.outcome === "ok");
  let tokens = 0;
  for (const s of ok) tokens += s.completionTokens ?? 0;
  const aggregateOutputTokensPerSecond = ok.length > 0 && wallTimeMs > 0 ? tokens / (wallTimeMs / 1000) : null;

  const ttftMs = distribution(values(ok, (s) => s.ttftMs));
  const e2eMs = distribution(values(ok, (s) => s.e2eMs));
  const health = input.clientHealth;
  // The client is judged on requests that streamed: a level of instant error replies keeps the loop
  // busy with nothing to bend, and its in-flight count says nothing of the client.
  const streamed = samples.some((s) => s.chunks > 0);
  const delay = health ? clientDelayFigures(health, ttftMs.p50, e2eMs.p50, streamed) : null;
  const sent = scheduleOf(input);
  const lag = sent ? distribution(sent.scheduleLagsMs) : null;
  const cachedPromptTokenShare = cachedShare(ok);
  const invalid = judgeValidity(
    validityFigures(input, { requests, streamed, delay, sent, lagP99Ms: lag?.p99 ?? null, cachedPromptTokenShare }),
  );
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
        achievedRatePerSecond: sent?.achievedRatePerSecond ?? null,
        inFlightMean: sent?.inFlightMean ?? null,
        inFlightMax: sent?.inFlightMax ?? null,
        scheduleLagMs: lag ? { p50: lag.p50, p99: lag.p99 } : null,
      },
      reusablePromptTokenShare: reusableShare(ok),
      conversation: input.sessions ? conversationFigures(ok, input.sessions) : null,
    }),
    client: {
      eventLoopLagP99Ms,
      limited: invalid.some((r) => isClientReason(r.code)),
      ...(health
        ? {
            eventLoopLagMeanMs: health.eventLoopLagMeanMs,
            readDelayMs: delay?.readDelayMs ?? 0,
            firstTokenReadDelayMs: delay?.firstTokenReadDelayMs ?? 0,
            loopUtilization: health.loopUtilization,
            cpuShare: health.cpuShare,
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

/** The level's requests by outcome. */
function countRequests(samples: Sample[]): RequestCounts {
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
  return requests;
}

/**
 * The arrivals of a level sent on a schedule, at the rate it offered (an open loop's load's; a trace
 * replay keeps a schedule as an open loop does, at the rate its window makes at the speedup); none
 * for a level that was not, or whose rate is not positive.
 */
function scheduleOf(input: LevelInput): (ScheduleInput & { ratePerSecond: number }) | undefined {
  const rate = offeredRate(input.load) ?? input.schedule?.ratePerSecond;
  return input.schedule && rate !== undefined && rate > 0 ? { ...input.schedule, ratePerSecond: rate } : undefined;
}

/** The figures the validity rules read (`ValidityFigures`), from the level's input and what `summarizeLevel` measured of it. */
function validityFigures(
  input: LevelInput,
  measured: {
    requests: RequestCounts;
    streamed: boolean;
    delay: ClientDelayFigures | null;
    sent: (ScheduleInput & { ratePerSecond: number }) | undefined;
    lagP99Ms: number | null;
    cachedPromptTokenShare: number | null;
  },
): ValidityFigures {
  const { requests, streamed, delay, sent } = measured;
  return {
    requests,
    earlyEnd: input.endedEarly ? { firstRequests: input.earlyRequests ?? EARLY_FAILURE_REQUESTS } : null,
    clientLag: { streamed, eventLoopLagP99Ms: input.eventLoopLagP99Ms, finerSignals: delay !== null },
    clientDelay: delay,
    workers: {
      streamed,
      // The level's N, for the rules of kinds that hold N users (an open loop keeps no N in flight).
      concurrency: concurrencyOf(input.load) ?? 0,
      requestsPerLevel: input.requestsPerLevel ?? null,
      achievedConcurrency: input.achievedConcurrency,
      waitingConcurrency: input.waitingConcurrency ?? 0,
    },
    schedule: sent
      ? {
          ratePerSecond: sent.ratePerSecond,
          achievedRatePerSecond: sent.achievedRatePerSecond,
          scheduleLagP99Ms: measured.lagP99Ms,
          toleranceMs: SCHEDULE_LAG_TOLERANCE_MS + (SCHEDULE_LAG_TOLERANCE_SHARE * 1000) / sent.ratePerSecond,
          maxInFlight: sent.maxInFlight,
          maxInFlightHit: sent.maxInFlightHit,
          sends: requests.sent,
        }
      : null,
    cache: {
      share: measured.cachedPromptTokenShare,
      expected: expectsCache(input.load) || Boolean(input.sessions),
    },
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
