/** @module Tests of a level's figures and validity on hand-made samples with exact expected numbers. */
import { describe, expect, it } from "vitest";
import { Level as LevelSchema, type Sample } from "../run/index.ts";
import { summarizeLevel } from "./level.ts";
import { calmLevel, failed, levelDefaults, sample } from "./sample.fixture.ts";
import { invalidReasonText, MAX_CACHED_PROMPT_SHARE } from "./validity.ts";

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
      load: { kind: "closed", concurrency: 2 },
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
      load: { kind: "closed", concurrency: 1 },
      samples: [sample(), sample({ tokenSource: "chunks" })],
      achievedConcurrency: 1,
      ...levelDefaults,
    });
    expect(level.tokensFromChunks).toBe(true);
  });

  it("is invalid without an ok sample, with a null aggregate", () => {
    const level = summarizeLevel({
      load: { kind: "closed", concurrency: 1 },
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
      load: { kind: "closed", concurrency: 1 },
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
        load: { kind: "closed", concurrency: 1 },
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
        load: { kind: "closed", concurrency: 4 },
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
        load: { kind: "closed", concurrency: 4 },
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

  it("is client-limited by achieved concurrency under 90 % of N, not at 90 %", () => {
    const run = (achieved: number) =>
      summarizeLevel({
        load: { kind: "closed", concurrency: 10 },
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
      load: { kind: "closed", concurrency: 10 },
      samples: [sample()],
      achievedConcurrency: 8.5,
      waitingConcurrency: 0.5,
      rateLimitWaitMs: 1234,
      ...levelDefaults,
    });
    expect(level.client.limited).toBe(false);
    expect(level.rateLimitWaitMs).toBe(1234);
    expect(
      summarizeLevel({
        load: { kind: "closed", concurrency: 1 },
        samples: [sample()],
        achievedConcurrency: 1,
        ...levelDefaults,
      }).rateLimitWaitMs,
    ).toBe(0);
  });

  /** A level of `sent` samples, `bad` of them with `outcome` (cycling when several are given), the rest ok. */
  const mixed = (bad: number, sent: number, outcomes: Sample["outcome"][]) =>
    summarizeLevel({
      load: { kind: "closed", concurrency: 2 },
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
      load: { kind: "closed", concurrency: 2 },
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
      load: { kind: "closed", concurrency: 1 },
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
  it("is invalid for its workload, not for its client, under N and at exactly N (one request per worker); valid above", () => {
    const with_ = (sent: number) =>
      summarizeLevel({
        load: { kind: "closed", concurrency: 8 },
        samples: Array.from({ length: sent }, () => sample()),
        achievedConcurrency: sent,
        requestsPerLevel: sent,
        ...levelDefaults,
      });
    const under = with_(7);
    expect(under.valid).toBe(false);
    expect(under.client.limited).toBe(false);
    expect(under.invalid).toEqual([{ code: "too_few_requests", detail: { requestsPerLevel: 7, concurrency: 8 } }]);
    const exactly = with_(8);
    expect(exactly.client.limited).toBe(false);
    expect(exactly.invalid).toEqual([{ code: "too_few_requests", detail: { requestsPerLevel: 8, concurrency: 8 } }]);
    expect(with_(9).valid).toBe(true);
  });
});

describe("cached prompt share", () => {
  const level = calmLevel;

  it("is null when no ok sample reports cached tokens", () => {
    const l = level([sample(), sample({ outcome: "timeout", cachedPromptTokens: 50 })]);
    expect(l.cachedPromptTokenShare).toBeNull();
    // The timeout makes the level invalid for failures, never for a cached prompt.
    expect(l.invalid.map((r) => r.code)).not.toContain("cached_prompt");
  });

  it("keeps a level valid at exactly 50 % and makes it invalid above, saying why", () => {
    expect(MAX_CACHED_PROMPT_SHARE).toBe(0.5);
    const half = level([sample({ cachedPromptTokens: 25 }), sample({ cachedPromptTokens: 25 })]);
    expect(half.cachedPromptTokenShare).toBe(0.5);
    expect(half.valid).toBe(true);
    // 51 of 100 prompt tokens: just over half.
    const over = level([sample({ cachedPromptTokens: 26 }), sample({ cachedPromptTokens: 25 })]);
    expect(over.cachedPromptTokenShare).toBe(0.51);
    expect(over.valid).toBe(false);
    expect(over.invalid).toEqual([{ code: "cached_prompt", detail: { share: 0.51, limitShare: 0.5 } }]);
  });

  it("counts only the samples that report both cached and prompt tokens", () => {
    const l = level([sample({ cachedPromptTokens: 10 }), sample({ cachedPromptTokens: null, promptTokens: 1000 })]);
    expect(l.cachedPromptTokenShare).toBe(0.2);
  });
});
