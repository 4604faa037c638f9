/** @module Tests of the validity policy: the documented thresholds, the client's own delay, every invalid reason's sentence and code. */
import { describe, expect, it } from "vitest";
import { InvalidCode, type InvalidReason, InvalidReason as InvalidReasonSchema } from "../run/index.ts";
import { KNEE_GAIN_THRESHOLD } from "./run.ts";
import { calmLevel, sample } from "./sample.fixture.ts";
import {
  CLIENT_LAG_LIMIT_MS,
  clientDelay,
  EARLY_FAILURE_REQUESTS,
  FIRST_TOKEN_READ_DELAY_MARGIN,
  invalidCodes,
  invalidReasonText,
  isClientReason,
  MAX_FAILURE_RATE,
  MAX_RATE_LIMITED_RATE,
  MAX_ROUTE_MISMATCH_RATE,
  MIN_ACHIEVED_CONCURRENCY_RATIO,
  VALIDITY_RULES,
} from "./validity.ts";

describe("thresholds", () => {
  it("are the documented numbers", () => {
    expect([CLIENT_LAG_LIMIT_MS, MIN_ACHIEVED_CONCURRENCY_RATIO, MAX_ROUTE_MISMATCH_RATE, KNEE_GAIN_THRESHOLD]).toEqual(
      [20, 0.9, 0.05, 0.15],
    );
    expect([MAX_RATE_LIMITED_RATE, MAX_FAILURE_RATE, EARLY_FAILURE_REQUESTS]).toEqual([0.05, 0.05, 4]);
  });
});

describe("clientDelay", () => {
  it("is client-limited when reads waited past 3 % of e2e, the per-stream tolerance, on short answers", () => {
    expect(clientDelay({ eventLoopLagMeanMs: 2.5, loopUtilization: 0.2 }, 20, 250)).toEqual({
      readDelayMs: 10,
      firstTokenReadDelayMs: 0,
      reason: {
        code: "client_read_delay_per_stream",
        detail: { readDelayMs: 10, toleranceMs: 7.5, toleranceShare: 0.03 },
      },
    });
    expect(clientDelay({ eventLoopLagMeanMs: 1.5, loopUtilization: 0.2 }, 20, 250).reason).toBeNull();
  });

  it("is client-limited when first tokens' reads waited, with the margin, past the TTFT tolerance, however small the mean", () => {
    // TTFT p50 100 ms: a tolerance of 13 ms; 11 ms taken 1.25x is past it, 10 ms is not.
    const quiet = { eventLoopLagMeanMs: 0.1, loopUtilization: 0.2 };
    expect(FIRST_TOKEN_READ_DELAY_MARGIN).toBe(1.25);
    expect(clientDelay({ ...quiet, firstTokenReadDelayMs: 11 }, 100, 5000)).toEqual({
      readDelayMs: 0.4,
      firstTokenReadDelayMs: 13.75,
      reason: { code: "client_first_token_delay", detail: { firstTokenReadDelayMs: 13.75, toleranceMs: 13 } },
    });
    expect(clientDelay({ ...quiet, firstTokenReadDelayMs: 10 }, 100, 5000).reason).toBeNull();
  });
});

/** One reason of each code, with the sentence `invalidReasonText` must give for it (pages, the CLI and `invalidReasons` read them). */
const SENTENCES: [InvalidReason, string][] = [
  [{ code: "no_ok_sample", detail: { sent: 1 } }, "no ok sample among 1 sent"],
  [
    { code: "route_mismatch", detail: { count: 6, sent: 100, share: 0.06, limitShare: 0.05 } },
    "route mismatches 6 of 100 sent (6 %), over 5 %",
  ],
  [
    { code: "rate_limited", detail: { count: 1, sent: 7, share: 1 / 7, limitShare: 0.05 } },
    "rate-limited (429) 1 of 7 sent (14.3 %), over 5 %",
  ],
  [
    {
      code: "failures",
      detail: {
        count: 4,
        sent: 7,
        share: 4 / 7,
        limitShare: 0.05,
        httpError: 1,
        timeout: 1,
        network: 1,
        incomplete: 1,
      },
    },
    "failures 4 of 7 sent (57.1 %), over 5 % (1 http error, 1 timeout, 1 network, 1 incomplete)",
  ],
  [
    {
      code: "failures",
      detail: { count: 1, sent: 1, share: 1, limitShare: 0.05, httpError: 0, timeout: 1, network: 0, incomplete: 0 },
    },
    "failures 1 of 1 sent (100 %), over 5 % (1 timeout)",
  ],
  [
    { code: "ended_early", detail: { firstRequests: 4 } },
    "ended at once: its first 4 requests (warm-up included) all failed",
  ],
  [
    { code: "client_lag", detail: { eventLoopLagP99Ms: 20.5, limitMs: 20 } },
    "client limited: event loop lag p99 20.5 ms, over 20 ms",
  ],
  [
    { code: "client_loop_busy", detail: { loopUtilization: 0.95, limitShare: 0.9 } },
    "client limited: event loop busy 95 % of the time, over 90 %",
  ],
  [
    { code: "client_read_delay", detail: { readDelayMs: 14, toleranceMs: 13 } },
    "client limited: reads waited about 14 ms, over the TTFT tolerance of 13 ms",
  ],
  [
    { code: "client_first_token_delay", detail: { firstTokenReadDelayMs: 13.75, toleranceMs: 13 } },
    "client limited: first tokens' reads waited about 13.8 ms, over the TTFT tolerance of 13 ms",
  ],
  [
    { code: "client_read_delay_per_stream", detail: { readDelayMs: 10, toleranceMs: 7.5, toleranceShare: 0.03 } },
    "client limited: reads waited about 10 ms, over 3 % of e2e p50 (7.5 ms)",
  ],
  [
    { code: "too_few_requests", detail: { requestsPerLevel: 7, concurrency: 8 } },
    "7 requests for concurrency 8: the workload sends at most one request per worker, so 8 were never in flight at once (requestsPerLevel must be more than N)",
  ],
  [
    { code: "client_concurrency", detail: { achievedConcurrency: 8.5, concurrency: 10, minShare: 0.9 } },
    "client limited: achieved concurrency 8.5, under 90 % of 10",
  ],
  [
    { code: "cached_prompt", detail: { share: 0.51, limitShare: 0.5 } },
    "cached prompt tokens 51 % of the prompt tokens, over 50 %: a prompt cache served most of the prompt",
  ],
  [
    { code: "client_schedule_lag", detail: { scheduleLagP99Ms: 12.5, toleranceMs: 10.6 } },
    "client limited: sends left 12.5 ms late at p99, over the schedule's tolerance of 10.6 ms",
  ],
  [
    { code: "max_in_flight", detail: { maxInFlight: 256 } },
    "256 requests were in flight when the next was due (maxInFlight): the endpoint could not keep up with the rate",
  ],
  [
    { code: "open_too_few_requests", detail: { requests: 3, minimum: 20 } },
    "3 requests at this rate, fewer than 20: too few to measure a rate (raise levelDurationSeconds or requestsPerLevel)",
  ],
  [
    { code: "open_rate_off", detail: { achievedRatePerSecond: 12.8, ratePerSecond: 4, marginPerSecond: 2.75 } },
    "achieved 12.8 requests/s against the 4 asked, off by more than its Poisson margin of 2.8",
  ],
];

describe("invalid reasons", () => {
  it.each(SENTENCES)("puts %j in words", (reason, sentence) => {
    expect(invalidReasonText(InvalidReasonSchema.parse(reason))).toBe(sentence);
  });

  it("has a sentence for every code", () => {
    expect(new Set(SENTENCES.map(([r]) => r.code))).toEqual(new Set(InvalidCode.options));
    expect(new Set(InvalidReasonSchema.options.map((o) => o.shape.code.value))).toEqual(new Set(InvalidCode.options));
  });

  it("tells the client's own limits by their code", () => {
    expect(InvalidCode.options.filter(isClientReason)).toEqual([
      "client_lag",
      "client_loop_busy",
      "client_read_delay",
      "client_first_token_delay",
      "client_read_delay_per_stream",
      "client_concurrency",
      "client_schedule_lag",
    ]);
  });

  it("gives a level's codes from `invalid`, and an older level's from its sentences", () => {
    const reasons = SENTENCES.map(([r]) => r);
    expect(invalidCodes({ invalid: reasons, invalidReasons: reasons.map(invalidReasonText) })).toEqual(
      reasons.map((r) => r.code),
    );
    // Codes added after `invalid` was recorded: no older document holds their sentences.
    const later = new Set(["client_schedule_lag", "max_in_flight", "open_too_few_requests", "open_rate_off"]);
    const legacy = SENTENCES.filter(([r]) => !later.has(r.code));
    expect(invalidCodes({ invalid: [], invalidReasons: legacy.map(([, text]) => text) })).toEqual(
      legacy.map(([r]) => r.code),
    );
    expect(invalidCodes({ invalid: [], invalidReasons: ["something new"] })).toEqual([]);
    expect(invalidCodes({ invalid: [], invalidReasons: [] })).toEqual([]);
  });
});

describe("the table of rules", () => {
  it("makes a rule moot only by rules that run before it", () => {
    const order = Object.keys(VALIDITY_RULES);
    for (const [code, rule] of Object.entries(VALIDITY_RULES))
      for (const earlier of rule.unless ?? [])
        expect(order.indexOf(earlier), `${code} unless ${earlier}`).toBeLessThan(order.indexOf(code));
  });

  it("gives a client-delay reason only for a level in which some request streamed", () => {
    const clientHealth = { eventLoopLagP99Ms: 1, eventLoopLagMeanMs: 0, loopUtilization: 0.95, cpuShare: 1 };
    const streamed = calmLevel([sample({ chunks: 3 })], { clientHealth });
    expect(streamed.invalid).toEqual([
      { code: "client_loop_busy", detail: { loopUtilization: 0.95, limitShare: 0.9 } },
    ]);
    expect(streamed.client.limited).toBe(true);
    const instant = calmLevel([sample({ chunks: 0 })], { clientHealth });
    expect([instant.invalid, instant.client.limited]).toEqual([[], false]);
  });
});
