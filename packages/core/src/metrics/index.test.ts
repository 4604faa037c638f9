/** @module Tests of the sweep statistics on hand-made inputs with exact expected numbers. */
import { describe, expect, it } from "vitest";
import {
  InvalidCode,
  type InvalidReason,
  InvalidReason as InvalidReasonSchema,
  type Level,
  Level as LevelSchema,
  type Sample,
  Summary as SummarySchema,
} from "../run/index.ts";
import {
  CLIENT_LAG_LIMIT_MS,
  clientDelay,
  deriveSampleFigures,
  distribution,
  EARLY_FAILURE_REQUESTS,
  FIRST_TOKEN_READ_DELAY_MARGIN,
  invalidCodes,
  invalidReasonText,
  isClientReason,
  KNEE_GAIN_THRESHOLD,
  levelStop,
  MAX_FAILURE_RATE,
  MAX_RATE_LIMITED_RATE,
  MAX_ROUTE_MISMATCH_RATE,
  MIN_ACHIEVED_CONCURRENCY_RATIO,
  summarizeLevel,
  summarizeRun,
} from "./index.ts";

function sample(over: Partial<Sample> = {}): Sample {
  return {
    level: 1,
    index: 0,
    outcome: "ok",
    startMs: 0,
    ttftMs: 100,
    ttftAnswerMs: 100,
    reasoningTokens: null,
    cachedPromptTokens: null,
    costUsd: null,
    e2eMs: 1000,
    completionTokens: 100,
    tokenSource: "usage",
    promptTokens: 50,
    outputTokensPerSecond: 100,
    decodeTokensPerSecond: 110,
    tpotMs: 9,
    interChunkMs: [10, 20],
    chunks: 3,
    responseId: "r",
    servedProvider: "p",
    httpStatus: 200,
    retryAfterSeconds: null,
    finishReason: "stop",
    error: null,
    connection: "new",
    staleSockets: 0,
    staleSocketMs: null,
    connectMs: null,
    tlsMs: null,
    ...over,
  };
}

function failed(outcome: Sample["outcome"]): Sample {
  return sample({
    outcome,
    ttftMs: null,
    ttftAnswerMs: null,
    e2eMs: null,
    completionTokens: null,
    tokenSource: null,
    outputTokensPerSecond: null,
    decodeTokensPerSecond: null,
    tpotMs: null,
    interChunkMs: [],
    chunks: 0,
  });
}

const levelDefaults = { wallTimeMs: 1000, eventLoopLagP99Ms: 1 };

/** A valid level with a given aggregate (tokens over a 1 s wall time). */
function levelWith(concurrency: number, aggregate: number, over: Partial<Level> = {}): Level {
  const level = summarizeLevel({
    concurrency,
    samples: [
      sample({
        completionTokens: aggregate,
        outputTokensPerSecond: aggregate / concurrency,
      }),
    ],
    achievedConcurrency: concurrency,
    ...levelDefaults,
  });
  return { ...level, ...over };
}

describe("thresholds", () => {
  it("are the documented numbers", () => {
    expect([CLIENT_LAG_LIMIT_MS, MIN_ACHIEVED_CONCURRENCY_RATIO, MAX_ROUTE_MISMATCH_RATE, KNEE_GAIN_THRESHOLD]).toEqual(
      [20, 0.9, 0.05, 0.15],
    );
    expect([MAX_RATE_LIMITED_RATE, MAX_FAILURE_RATE, EARLY_FAILURE_REQUESTS]).toEqual([0.05, 0.05, 4]);
  });
});

describe("distribution", () => {
  it("is all null but n for no values", () => {
    expect(distribution([])).toEqual({
      n: 0,
      mean: null,
      min: null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      max: null,
    });
  });

  it("gives the one value everywhere for n = 1", () => {
    expect(distribution([7])).toEqual({
      n: 1,
      mean: 7,
      min: 7,
      p50: 7,
      p90: 7,
      p95: 7,
      p99: 7,
      max: 7,
    });
  });

  it("interpolates between the two values for n = 2", () => {
    const d = distribution([20, 10]);
    expect(d.n).toBe(2);
    expect(d.mean).toBe(15);
    expect(d.min).toBe(10);
    expect(d.max).toBe(20);
    expect(d.p50).toBe(15);
    expect(d.p90).toBeCloseTo(19, 12);
    expect(d.p95).toBeCloseTo(19.5, 12);
    expect(d.p99).toBeCloseTo(19.9, 12);
  });

  it("uses rank (n - 1) p for n = 100, regardless of input order", () => {
    const input = Array.from({ length: 100 }, (_, i) => 100 - i);
    const d = distribution(input);
    expect(d.mean).toBe(50.5);
    expect(d.min).toBe(1);
    expect(d.max).toBe(100);
    expect(d.p50).toBeCloseTo(50.5, 12);
    expect(d.p90).toBeCloseTo(90.1, 12);
    expect(d.p95).toBeCloseTo(95.05, 12);
    expect(d.p99).toBeCloseTo(99.01, 12);
    expect(input[0]).toBe(100);
  });
});

describe("deriveSampleFigures", () => {
  it("derives every figure from several chunks, the first carrying several tokens", () => {
    // Prepare: the first chunk holds half the characters, so an estimated 6 of 12 tokens.
    const f = deriveSampleFigures({
      startMs: 100,
      contentChunks: [
        { tMs: 300, chars: 30 },
        { tMs: 400, chars: 10 },
        { tMs: 500, chars: 10 },
        { tMs: 600, chars: 10 },
      ],
      completionTokens: 12,
    });
    expect(f.ttftMs).toBe(200);
    expect(f.e2eMs).toBe(500);
    expect(f.outputTokensPerSecond).toBe(24);
    expect(f.decodeTokensPerSecond).toBe(20); // 6 tokens over 0.3 s
    expect(f.tpotMs).toBeCloseTo(300 / 11, 12);
    expect(f.interChunkMs).toEqual([100, 100, 100]);
  });

  it("estimates the first chunk's tokens by its share of characters", () => {
    const f = deriveSampleFigures({
      startMs: 0,
      contentChunks: [
        { tMs: 50, chars: 1 },
        { tMs: 250, chars: 3 },
      ],
      completionTokens: 8,
    });
    expect(f.decodeTokensPerSecond).toBe(30); // 8 - 8 * 1/4 = 6 tokens over 0.2 s
    expect(f.tpotMs).toBeCloseTo(200 / 7, 12);
  });

  it("falls back to the share of chunks when no chunk has characters", () => {
    const f = deriveSampleFigures({
      startMs: 0,
      contentChunks: [
        { tMs: 0, chars: 0 },
        { tMs: 1000, chars: 0 },
      ],
      completionTokens: 10,
    });
    expect(f.decodeTokensPerSecond).toBe(5);
  });

  it("gives no tpot for 1 token", () => {
    const f = deriveSampleFigures({
      startMs: 0,
      contentChunks: [{ tMs: 400, chars: 5 }],
      completionTokens: 1,
    });
    expect(f).toEqual({
      ttftMs: 400,
      ttftAnswerMs: null,
      e2eMs: 400,
      outputTokensPerSecond: 2.5,
      decodeTokensPerSecond: null,
      tpotMs: null,
      interChunkMs: [],
    });
  });

  it("gives no decode rate or tpot when all tokens came in one chunk", () => {
    const f = deriveSampleFigures({
      startMs: 0,
      contentChunks: [{ tMs: 500, chars: 40 }],
      completionTokens: 10,
    });
    expect(f.outputTokensPerSecond).toBe(20);
    expect(f.decodeTokensPerSecond).toBeNull();
    expect(f.tpotMs).toBeNull();
  });

  it("is all null for 0 chunks", () => {
    expect(
      deriveSampleFigures({
        startMs: 10,
        contentChunks: [],
        completionTokens: 5,
      }),
    ).toEqual({
      ttftMs: null,
      ttftAnswerMs: null,
      e2eMs: null,
      outputTokensPerSecond: null,
      decodeTokensPerSecond: null,
      tpotMs: null,
      interChunkMs: [],
    });
  });

  it("gives times but no rates without a token count, and no rate over zero duration", () => {
    const f = deriveSampleFigures({
      startMs: 0,
      contentChunks: [
        { tMs: 10, chars: 1 },
        { tMs: 20, chars: 1 },
      ],
      completionTokens: null,
    });
    expect([f.ttftMs, f.e2eMs, f.outputTokensPerSecond, f.decodeTokensPerSecond, f.tpotMs]).toEqual([
      10,
      20,
      null,
      null,
      null,
    ]);
    const zero = deriveSampleFigures({
      startMs: 5,
      contentChunks: [{ tMs: 5, chars: 1 }],
      completionTokens: 3,
    });
    expect(zero.outputTokensPerSecond).toBeNull();
  });
});

describe("summarizeLevel", () => {
  it("counts every outcome and keeps non-ok samples out of the distributions", () => {
    // Prepare
    const samples = [
      sample({
        completionTokens: 100,
        ttftMs: 100,
        outputTokensPerSecond: 50,
        interChunkMs: [10, 20],
      }),
      sample({
        completionTokens: 300,
        ttftMs: 300,
        outputTokensPerSecond: 150,
        interChunkMs: [30],
      }),
      { ...failed("rate_limited"), ttftMs: 99999 },
      failed("http_error"),
      failed("timeout"),
      failed("network"),
      { ...failed("incomplete"), ttftMs: 5, interChunkMs: [1000] },
    ];
    // Act
    const level = summarizeLevel({
      concurrency: 2,
      samples,
      wallTimeMs: 2000,
      achievedConcurrency: 2,
      eventLoopLagP99Ms: 3,
    });
    // Assess
    expect(LevelSchema.parse(level)).toEqual(level);
    expect(level.requests).toEqual({
      sent: 7,
      ok: 2,
      rateLimited: 1,
      routeMismatch: 0,
      httpError: 1,
      timeout: 1,
      network: 1,
      incomplete: 1,
    });
    expect(level.aggregateOutputTokensPerSecond).toBe(200);
    expect(level.ttftMs).toMatchObject({
      n: 2,
      min: 100,
      max: 300,
      mean: 200,
      p50: 200,
    });
    expect(level.perStream.outputTokensPerSecond).toMatchObject({
      n: 2,
      mean: 100,
    });
    expect(level.interChunkMs).toMatchObject({
      n: 3,
      min: 10,
      max: 30,
      p50: 20,
    });
    expect(level.tokensFromChunks).toBe(false);
    expect(level.client).toEqual({ eventLoopLagP99Ms: 3, limited: false });
    // 1 of 7 rate-limited and 4 of 7 other failures: both over 5 %.
    expect(level.valid).toBe(false);
    expect(level.invalid).toEqual([
      { code: "rate_limited", detail: { count: 1, sent: 7, share: 1 / 7, limitShare: 0.05 } },
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
    ]);
    // The words are built from the codes and their figures, one sentence each.
    expect(level.invalidReasons).toEqual(level.invalid.map(invalidReasonText));
  });

  it("flags chunk-counted tokens of an ok sample", () => {
    const level = summarizeLevel({
      concurrency: 1,
      samples: [sample(), sample({ tokenSource: "chunks" })],
      achievedConcurrency: 1,
      ...levelDefaults,
    });
    expect(level.tokensFromChunks).toBe(true);
  });

  it("is invalid without an ok sample, with a null aggregate", () => {
    const level = summarizeLevel({
      concurrency: 1,
      samples: [failed("timeout")],
      achievedConcurrency: 1,
      ...levelDefaults,
    });
    expect(level.aggregateOutputTokensPerSecond).toBeNull();
    expect(level.ttftMs.n).toBe(0);
    expect(level.valid).toBe(false);
    expect(level.invalid.map((r) => r.code)).toEqual(["no_ok_sample", "failures"]);
    expect(level.invalid[0]).toEqual({ code: "no_ok_sample", detail: { sent: 1 } });
  });

  it("has a null aggregate for a zero wall time", () => {
    const level = summarizeLevel({
      concurrency: 1,
      samples: [sample()],
      wallTimeMs: 0,
      achievedConcurrency: 1,
      eventLoopLagP99Ms: 0,
    });
    expect(level.aggregateOutputTokensPerSecond).toBeNull();
  });

  it("stays valid at exactly 5 % route mismatches and is invalid above", () => {
    const at = (mismatches: number, sent: number) =>
      summarizeLevel({
        concurrency: 1,
        samples: [
          ...Array.from({ length: sent - mismatches }, () => sample()),
          ...Array.from({ length: mismatches }, () => failed("route_mismatch")),
        ],
        achievedConcurrency: 1,
        ...levelDefaults,
      });
    expect(at(1, 20).valid).toBe(true);
    expect(at(5, 100).valid).toBe(true);
    const over = at(6, 100);
    expect(over.requests.routeMismatch).toBe(6);
    expect(over.valid).toBe(false);
    expect(over.client.limited).toBe(false);
    expect(over.invalid).toEqual([
      { code: "route_mismatch", detail: { count: 6, sent: 100, share: 0.06, limitShare: 0.05 } },
    ]);
  });

  it("is client-limited by event loop lag over 20 ms, not at 20 ms", () => {
    const run = (lag: number) =>
      summarizeLevel({
        concurrency: 4,
        samples: [sample()],
        wallTimeMs: 1000,
        achievedConcurrency: 4,
        eventLoopLagP99Ms: lag,
      });
    expect(run(20).client.limited).toBe(false);
    const lagged = run(20.5);
    expect(lagged.client).toEqual({ eventLoopLagP99Ms: 20.5, limited: true });
    expect(lagged.valid).toBe(false);
    expect(lagged.invalid).toEqual([{ code: "client_lag", detail: { eventLoopLagP99Ms: 20.5, limitMs: 20 } }]);
  });

  it("is client-limited when its reads waited past the TTFT tolerance, or its loop had no slack, judged by the finer signals", () => {
    // TTFT p50 100 ms: the tolerance is 10 + 3 = 13 ms; reads wait about 4 x the mean loop delay.
    const run = (eventLoopLagMeanMs: number, loopUtilization: number) =>
      summarizeLevel({
        concurrency: 4,
        samples: [sample()],
        wallTimeMs: 1000,
        achievedConcurrency: 4,
        // A coarse p99 over 20 ms alone does not make the level limited when the finer signals are there.
        eventLoopLagP99Ms: 40,
        clientHealth: { eventLoopLagP99Ms: 40, eventLoopLagMeanMs, loopUtilization, cpuShare: 0.3 },
      });
    const calm = run(3, 0.5);
    expect(calm.client).toEqual({
      eventLoopLagP99Ms: 40,
      limited: false,
      eventLoopLagMeanMs: 3,
      readDelayMs: 12,
      firstTokenReadDelayMs: 0,
      loopUtilization: 0.5,
      cpuShare: 0.3,
    });
    expect(calm.valid).toBe(true);
    const waited = run(3.5, 0.5);
    expect(waited.client.limited).toBe(true);
    expect(waited.invalid).toEqual([{ code: "client_read_delay", detail: { readDelayMs: 14, toleranceMs: 13 } }]);
    const busy = run(1, 0.95);
    expect(busy.client.limited).toBe(true);
    expect(busy.invalid).toEqual([{ code: "client_loop_busy", detail: { loopUtilization: 0.95, limitShare: 0.9 } }]);
    expect(LevelSchema.parse(busy).client.readDelayMs).toBe(4);
  });

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

  it("is client-limited by achieved concurrency under 90 % of N, not at 90 %", () => {
    const run = (achieved: number) =>
      summarizeLevel({
        concurrency: 10,
        samples: [sample()],
        achievedConcurrency: achieved,
        ...levelDefaults,
      });
    expect(run(9).client.limited).toBe(false);
    const short = run(8.5);
    expect(short.client.limited).toBe(true);
    expect(short.valid).toBe(false);
    expect(short.invalid).toEqual([
      { code: "client_concurrency", detail: { achievedConcurrency: 8.5, concurrency: 10, minShare: 0.9 } },
    ]);
  });

  it("counts workers waiting after a 429 toward achieved concurrency, and records the wait", () => {
    const level = summarizeLevel({
      concurrency: 10,
      samples: [sample()],
      achievedConcurrency: 8.5,
      waitingConcurrency: 0.5,
      rateLimitWaitMs: 1234,
      ...levelDefaults,
    });
    expect(level.client.limited).toBe(false);
    expect(level.rateLimitWaitMs).toBe(1234);
    expect(
      summarizeLevel({ concurrency: 1, samples: [sample()], achievedConcurrency: 1, ...levelDefaults }).rateLimitWaitMs,
    ).toBe(0);
  });

  /** A level of `sent` samples, `bad` of them with `outcome` (cycling when several are given), the rest ok. */
  const mixed = (bad: number, sent: number, outcomes: Sample["outcome"][]) =>
    summarizeLevel({
      concurrency: 2,
      samples: [
        ...Array.from({ length: sent - bad }, () => sample()),
        ...Array.from({ length: bad }, (_, i) => failed(outcomes[i % outcomes.length] as Sample["outcome"])),
      ],
      achievedConcurrency: 2,
      ...levelDefaults,
    });

  it("stays valid at exactly 5 % rate-limited and is invalid above, saying so", () => {
    expect(mixed(5, 100, ["rate_limited"]).valid).toBe(true);
    expect(mixed(1, 20, ["rate_limited"]).valid).toBe(true);
    const over = mixed(6, 100, ["rate_limited"]);
    expect(over.valid).toBe(false);
    expect(over.invalid).toEqual([
      { code: "rate_limited", detail: { count: 6, sent: 100, share: 0.06, limitShare: 0.05 } },
    ]);
    // 1 of 19 is 5.3 %: just over.
    expect(mixed(1, 19, ["rate_limited"]).valid).toBe(false);
  });

  it("stays valid at exactly 5 % other failures and is invalid above, for each kind and mixed", () => {
    for (const kind of ["http_error", "timeout", "network", "incomplete"] as const) {
      expect(mixed(5, 100, [kind]).valid, kind).toBe(true);
      expect(mixed(6, 100, [kind]).valid, kind).toBe(false);
    }
    const over = mixed(6, 100, ["http_error", "timeout", "network"]);
    expect(over.invalid).toEqual([
      {
        code: "failures",
        detail: {
          count: 6,
          sent: 100,
          share: 0.06,
          limitShare: 0.05,
          httpError: 2,
          timeout: 2,
          network: 2,
          incomplete: 0,
        },
      },
    ]);
    // Rate limits and failures are judged apart: 5 % of each is valid.
    const both = summarizeLevel({
      concurrency: 2,
      samples: [
        ...Array.from({ length: 90 }, () => sample()),
        ...Array.from({ length: 5 }, () => failed("rate_limited")),
        ...Array.from({ length: 5 }, () => failed("timeout")),
      ],
      achievedConcurrency: 2,
      ...levelDefaults,
    });
    expect(both.valid).toBe(true);
  });

  it("says so when the level ended at once after its first requests failed", () => {
    const level = summarizeLevel({
      concurrency: 1,
      samples: [failed("network"), failed("network"), failed("network")],
      achievedConcurrency: 1,
      endedEarly: true,
      ...levelDefaults,
    });
    expect(level.valid).toBe(false);
    expect(level.invalid).toContainEqual({ code: "ended_early", detail: { firstRequests: 4 } });
  });
});

describe("a level with fewer requests than N", () => {
  it("is invalid for its workload, not for its client, under N and valid at exactly N", () => {
    const with_ = (sent: number) =>
      summarizeLevel({
        concurrency: 8,
        samples: Array.from({ length: sent }, () => sample()),
        achievedConcurrency: sent,
        requestsPerLevel: sent,
        ...levelDefaults,
      });
    const under = with_(7);
    expect(under.valid).toBe(false);
    expect(under.client.limited).toBe(false);
    expect(under.invalid).toEqual([{ code: "too_few_requests", detail: { requestsPerLevel: 7, concurrency: 8 } }]);
    expect(with_(8).valid).toBe(true);
  });
});

describe("levelStop", () => {
  const at = (samples: Sample[], extra: { endedEarly?: boolean; concurrency?: number } = {}) =>
    summarizeLevel({
      concurrency: extra.concurrency ?? 8,
      samples,
      achievedConcurrency: extra.concurrency ?? 8,
      endedEarly: extra.endedEarly,
      ...levelDefaults,
    });
  const many = <T>(n: number, make: () => T): T[] => Array.from({ length: n }, make);

  it("is null for a valid level and for levels invalid for other reasons", () => {
    expect(levelStop(at(many(20, () => sample())))).toBeNull();
    expect(levelStop(at([...many(18, () => sample()), ...many(2, () => failed("route_mismatch"))]))).toBeNull();
    const lagged = summarizeLevel({
      concurrency: 1,
      samples: [sample()],
      wallTimeMs: 1000,
      achievedConcurrency: 1,
      eventLoopLagP99Ms: 50,
    });
    expect(levelStop(lagged)).toBeNull();
    // Exactly 5 % of each does not stop the sweep.
    expect(levelStop(at([...many(19, () => sample()), failed("rate_limited")]))).toBeNull();
    expect(levelStop(at([...many(19, () => sample()), failed("timeout")]))).toBeNull();
  });

  it("names rate limits, in words, and they win over failures", () => {
    const stop = levelStop(
      at([...many(12, () => sample()), ...many(6, () => failed("rate_limited")), ...many(2, () => failed("timeout"))]),
    );
    expect(stop).toEqual({
      concurrency: 8,
      reason: "rate_limited",
      detail: "rate-limited from N=8: 6 of 20 requests got 429 (30 %, over 5 %); the sweep ran no higher level",
    });
  });

  it("names failures with what the endpoint answered", () => {
    const level = at(
      many(3, () => failed("http_error")),
      { endedEarly: true, concurrency: 1 },
    );
    const stop = levelStop(
      level,
      many(4, () => ({ outcome: "http_error", httpStatus: 401, error: "401 invalid API key" })),
    );
    expect(stop?.reason).toBe("failures");
    expect(stop?.concurrency).toBe(1);
    expect(stop?.detail).toContain("failing from N=1: 3 of 3 requests failed (3 http error)");
    expect(stop?.detail).toContain("401 invalid API key");
  });

  it("names an endpoint that never answered unreachable, even with no measured request", () => {
    const refused = { outcome: "network" as const, httpStatus: null, error: "connect ECONNREFUSED 127.0.0.1:9" };
    const stop = levelStop(
      at(
        many(3, () => failed("network")),
        { endedEarly: true, concurrency: 1 },
      ),
      many(4, () => refused),
    );
    expect(stop?.reason).toBe("unreachable");
    expect(stop?.detail).toContain("ECONNREFUSED");
    // Four warm-up requests all failed: nothing was measured, and the level still stops the sweep.
    const warmOnly = at([], { endedEarly: true, concurrency: 1 });
    expect(
      levelStop(
        warmOnly,
        many(4, () => refused),
      )?.reason,
    ).toBe("unreachable");
    // Without the first results nothing says whether anything answered.
    expect(levelStop(warmOnly)?.reason).toBe("failures");
    // A failure with an answer (here a timeout after a 200) is not unreachable.
    const slow = { outcome: "timeout" as const, httpStatus: 200, error: "request timed out" };
    expect(
      levelStop(
        at(
          many(3, () => failed("timeout")),
          { endedEarly: true },
        ),
        many(4, () => slow),
      )?.reason,
    ).toBe("failures");
  });

  it("stops after an early end read from an older document, which has the sentences and no codes", () => {
    const { invalid: _, ...stored } = at([], { endedEarly: true, concurrency: 1 });
    const old = LevelSchema.parse(stored);
    expect(old.invalid).toEqual([]);
    expect(levelStop(old)?.reason).toBe("failures");
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
    "7 requests for concurrency 8: 8 were never in flight at once (requestsPerLevel must be at least N)",
  ],
  [
    { code: "client_concurrency", detail: { achievedConcurrency: 8.5, concurrency: 10, minShare: 0.9 } },
    "client limited: achieved concurrency 8.5, under 90 % of 10",
  ],
  [
    { code: "cached_prompt", detail: { share: 0.51, limitShare: 0.5 } },
    "cached prompt tokens 51 % of the prompt tokens, over 50 %: a prompt cache served most of the prompt",
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
    ]);
  });

  it("gives a level's codes from `invalid`, and an older level's from its sentences", () => {
    const reasons = SENTENCES.map(([r]) => r);
    expect(invalidCodes({ invalid: reasons, invalidReasons: reasons.map(invalidReasonText) })).toEqual(
      reasons.map((r) => r.code),
    );
    expect(invalidCodes({ invalid: [], invalidReasons: SENTENCES.map(([, text]) => text) })).toEqual(
      reasons.map((r) => r.code),
    );
    expect(invalidCodes({ invalid: [], invalidReasons: ["something new"] })).toEqual([]);
    expect(invalidCodes({ invalid: [], invalidReasons: [] })).toEqual([]);
  });
});

describe("summarizeRun", () => {
  const concurrencies = [1, 2, 4, 8, 16, 32];

  it("finds the knee where no higher level adds over 15 %", () => {
    const aggregates = [100, 190, 350, 600, 640, 650];
    const s = summarizeRun(concurrencies.map((n, i) => levelWith(n, aggregates[i] as number)));
    expect(SummarySchema.parse(s)).toEqual(s);
    expect(s.kneeConcurrency).toBe(8);
    expect(s.saturated).toBe(true);
    expect(s.peak).toEqual({
      concurrency: 32,
      aggregateOutputTokensPerSecond: 650,
      perStreamOutputTokensPerSecond: 650 / 32,
    });
    expect(s.scalingEfficiency).toBeCloseTo(650 / (32 * 100), 12);
    expect(s.valid).toBe(true);
  });

  it("has no knee while aggregate still climbs at the top", () => {
    const s = summarizeRun([1, 2, 4, 8].map((n) => levelWith(n, 100 * n)));
    expect(s.kneeConcurrency).toBeNull();
    expect(s.saturated).toBe(false);
    expect(s.scalingEfficiency).toBe(1);
  });

  it("does not take a flat start for the knee when a higher level still climbs", () => {
    const s = summarizeRun([levelWith(1, 100), levelWith(2, 105), levelWith(4, 300)]);
    expect(s.kneeConcurrency).toBeNull();
    expect(s.saturated).toBe(false);
  });

  it("treats exactly +15 % as no raise", () => {
    const s = summarizeRun([levelWith(1, 100), levelWith(2, 115)]);
    expect(s.kneeConcurrency).toBe(1);
    expect(s.saturated).toBe(true);
  });

  it("leaves invalid levels out of the knee and the peak", () => {
    const levels = [
      levelWith(1, 100),
      levelWith(2, 190),
      levelWith(4, 200),
      levelWith(8, 900, {
        valid: false,
        invalid: [{ code: "client_lag", detail: { eventLoopLagP99Ms: 30, limitMs: 20 } }],
      }),
    ];
    const s = summarizeRun(levels);
    expect(s.kneeConcurrency).toBe(2);
    expect(s.saturated).toBe(true);
    expect(s.peak?.concurrency).toBe(4);
    expect(s.scalingEfficiency).toBe(0.5);
    expect(s.valid).toBe(false);
  });

  it("never ranks an invalid level 1: no single stream and no efficiency baseline from it", () => {
    const level1 = summarizeLevel({
      concurrency: 1,
      samples: [...Array.from({ length: 18 }, () => sample()), failed("rate_limited"), failed("rate_limited")],
      achievedConcurrency: 1,
      ...levelDefaults,
    });
    expect(level1.valid).toBe(false);
    const s = summarizeRun([level1, levelWith(2, 400)]);
    expect(s.singleStream).toBeNull();
    expect(s.scalingEfficiency).toBeNull();
    expect(s.peak?.concurrency).toBe(2);
    // The level keeps its data.
    expect(level1.perStream.outputTokensPerSecond.p50).toBe(100);
  });

  it("derives the stop from the lowest level calling for one, unless the sweep gives it", () => {
    const limited = summarizeLevel({
      concurrency: 4,
      samples: [sample(), failed("rate_limited")],
      achievedConcurrency: 4,
      ...levelDefaults,
    });
    const s = summarizeRun([levelWith(1, 100), levelWith(2, 180), limited]);
    expect(s.stop?.reason).toBe("rate_limited");
    expect(s.stop?.concurrency).toBe(4);
    expect(s.peak?.concurrency).toBe(2);
    expect(summarizeRun([levelWith(1, 100), limited], { stop: null }).stop).toBeNull();
    expect(summarizeRun([levelWith(1, 100), levelWith(2, 180)]).stop).toBeNull();
  });

  it("takes single-stream figures from level 1", () => {
    const level1 = summarizeLevel({
      concurrency: 1,
      samples: [
        sample({
          ttftMs: 100,
          outputTokensPerSecond: 40,
          decodeTokensPerSecond: 50,
        }),
        sample({
          ttftMs: 200,
          outputTokensPerSecond: 60,
          decodeTokensPerSecond: 70,
        }),
      ],
      achievedConcurrency: 1,
      ...levelDefaults,
    });
    const s = summarizeRun([level1]);
    expect(s.singleStream).toEqual({
      outputTokensPerSecond: 50,
      decodeTokensPerSecond: 60,
      ttftP50Ms: 150,
      ttftP95Ms: 195,
    });
    expect(s.peak?.concurrency).toBe(1);
    expect(s.kneeConcurrency).toBeNull();
    expect(s.saturated).toBe(false);
    expect(s.scalingEfficiency).toBe(1);
  });

  it("has no single stream, peak or efficiency without the figures behind them", () => {
    const s = summarizeRun([levelWith(2, 200, { valid: false })]);
    expect(s.singleStream).toBeNull();
    expect(s.peak).toBeNull();
    expect(s.scalingEfficiency).toBeNull();
    expect(s.kneeConcurrency).toBeNull();
    const none = summarizeRun([]);
    expect(none).toEqual({
      singleStream: null,
      peak: null,
      kneeConcurrency: null,
      saturated: false,
      scalingEfficiency: null,
      errorRate: 0,
      rateLimitRate: 0,
      valid: false,
      capacity: null,
      goodputPeak: null,
      stop: null,
    });
  });

  it("computes error and rate-limit rates over every level", () => {
    const a = summarizeLevel({
      concurrency: 1,
      samples: [sample(), sample(), failed("rate_limited"), failed("timeout")],
      achievedConcurrency: 1,
      ...levelDefaults,
    });
    const b = summarizeLevel({
      concurrency: 2,
      samples: [sample(), sample(), sample(), failed("rate_limited")],
      achievedConcurrency: 2,
      ...levelDefaults,
    });
    const s = summarizeRun([a, b]);
    expect(s.errorRate).toBe(3 / 8);
    expect(s.rateLimitRate).toBe(2 / 8);
  });
});
