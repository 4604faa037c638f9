/** @module Tests of the reader's figures on hand-made inputs: answer TTFT, cached prompt share, cost, SLO, goodput, capacity. */
import { describe, expect, it } from "vitest";
import type { Sample } from "../run/index.ts";
import {
  DEFAULT_SLO,
  deriveSampleFigures,
  type LevelInput,
  MAX_CACHED_PROMPT_SHARE,
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
    chunks: 3,
    responseId: "r",
    servedProvider: null,
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

const level = (samples: Sample[], over: Partial<LevelInput> = {}) =>
  summarizeLevel({ concurrency: 1, samples, wallTimeMs: 1000, achievedConcurrency: 1, eventLoopLagP99Ms: 1, ...over });

describe("answer TTFT", () => {
  it("is the first answer chunk minus start, apart from the first reasoning chunk", () => {
    const f = deriveSampleFigures({
      startMs: 10,
      contentChunks: [
        { tMs: 60, chars: 4 },
        { tMs: 90, chars: 4 },
        { tMs: 130, chars: 4 },
      ],
      completionTokens: 3,
      firstAnswerMs: 130,
    });
    expect(f.ttftMs).toBe(50);
    expect(f.ttftAnswerMs).toBe(120);
  });

  it("is null when no answer came, and a distribution over the ok samples of a level", () => {
    expect(
      deriveSampleFigures({
        startMs: 0,
        contentChunks: [{ tMs: 5, chars: 1 }],
        completionTokens: 1,
        firstAnswerMs: null,
      }).ttftAnswerMs,
    ).toBeNull();
    const l = level([
      sample({ ttftAnswerMs: 300 }),
      sample({ ttftAnswerMs: 500 }),
      sample({ outcome: "http_error", ttftAnswerMs: 9 }),
    ]);
    expect(l.ttftAnswerMs).toMatchObject({ n: 2, min: 300, p50: 400, max: 500 });
  });
});

describe("cached prompt share", () => {
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

describe("cost per million output tokens", () => {
  it("meters the gateway's cost over the ok samples that carry it", () => {
    const l = level([
      sample({ costUsd: 0.001 }),
      sample({ costUsd: 0.002 }),
      sample({ costUsd: null, completionTokens: 1000 }),
      sample({ outcome: "http_error", costUsd: 1 }),
    ]);
    expect(l.cost.meteredUsdPerMillionOutputTokens).toBeCloseTo((0.003 / 200) * 1e6, 9);
    expect(l.cost.declaredUsdPerMillionOutputTokens).toBeNull();
  });

  it("declares list prices over the mean request: output price plus input price x prompt / completion", () => {
    const l = level([sample({ promptTokens: 40 }), sample({ promptTokens: 60 })], {
      pricing: { inputPerMillionUsd: 1, outputPerMillionUsd: 2 },
    });
    expect(l.cost.declaredUsdPerMillionOutputTokens).toBeCloseTo(2 + (1 * 100) / 200, 12);
    expect(l.cost.meteredUsdPerMillionOutputTokens).toBeNull();
  });

  it("declares an hourly price over the level's aggregate, and nothing without an aggregate", () => {
    // 200 tokens in 1 s: 200 tok/s, 720 000 tokens an hour for 3.6 USD.
    const l = level([sample(), sample()], { pricing: { hourlyUsd: 3.6 } });
    expect(l.aggregateOutputTokensPerSecond).toBe(200);
    expect(l.cost.declaredUsdPerMillionOutputTokens).toBeCloseTo(5, 12);
    const none = level([sample({ outcome: "http_error" })], { pricing: { hourlyUsd: 3.6 } });
    expect(none.cost.declaredUsdPerMillionOutputTokens).toBeNull();
  });
});

describe("SLO and goodput", () => {
  const slo = { minOutputTokensPerSecond: 50, maxTtftMs: 400 };

  it("defaults to 20 tok/s and 2 s", () => {
    expect(DEFAULT_SLO).toEqual({ minOutputTokensPerSecond: 20, maxTtftMs: 2000 });
    expect(level([sample({ outputTokensPerSecond: 20, ttftMs: 2000 })]).meetsSlo).toBe(true);
    expect(level([sample({ outputTokensPerSecond: 19.9 })]).meetsSlo).toBe(false);
  });

  it("meets the SLO at exactly the minimum per-stream p50 and the maximum TTFT p95, not beyond", () => {
    const at = level([sample({ outputTokensPerSecond: 50, ttftMs: 400 })], { slo });
    expect(at.meetsSlo).toBe(true);
    expect(level([sample({ outputTokensPerSecond: 49.99, ttftMs: 400 })], { slo }).meetsSlo).toBe(false);
    expect(level([sample({ outputTokensPerSecond: 50, ttftMs: 400.01 })], { slo }).meetsSlo).toBe(false);
    expect(level([sample({ outcome: "timeout" })], { slo }).meetsSlo).toBe(false);
  });

  it("judges TTFT at p95: one slow request in twenty-one does not fail the level, two do", () => {
    const quick = Array.from({ length: 19 }, () => sample({ ttftMs: 100 }));
    expect(level([...quick, sample({ ttftMs: 100 }), sample({ ttftMs: 900 })], { slo }).meetsSlo).toBe(true);
    expect(level([...quick, sample({ ttftMs: 900 }), sample({ ttftMs: 900 })], { slo }).meetsSlo).toBe(false);
  });

  it("counts only the tokens of requests that each met the SLO, over the wall time", () => {
    const l = level(
      [
        sample({ completionTokens: 100 }),
        sample({ completionTokens: 30, outputTokensPerSecond: 49 }),
        sample({ completionTokens: 40, ttftMs: 401 }),
        sample({ completionTokens: 50, outputTokensPerSecond: 50, ttftMs: 400 }),
        sample({ outcome: "incomplete", completionTokens: 70 }),
      ],
      { slo, wallTimeMs: 2000 },
    );
    expect(l.goodputOutputTokensPerSecond).toBe(150 / 2);
    expect(l.aggregateOutputTokensPerSecond).toBe(220 / 2);
    expect(level([sample({ outcome: "timeout" })]).goodputOutputTokensPerSecond).toBeNull();
  });
});

describe("capacity and goodput peak", () => {
  const at = (concurrency: number, tokensPerSecond: number, valid = true) => {
    const l = summarizeLevel({
      concurrency,
      samples: [sample({ completionTokens: 100 * concurrency, outputTokensPerSecond: tokensPerSecond })],
      wallTimeMs: 1000,
      achievedConcurrency: concurrency,
      eventLoopLagP99Ms: valid ? 1 : 50,
      slo: { minOutputTokensPerSecond: 50, maxTtftMs: 2000 },
    });
    return l;
  };

  it("is the highest valid level that meets the SLO, and the valid level with the most goodput", () => {
    const s = summarizeRun([at(1, 90), at(2, 70), at(4, 55), at(8, 40), at(16, 60, false)]);
    expect(s.capacity).toBe(4);
    expect(s.goodputPeak).toEqual({ concurrency: 4, goodputOutputTokensPerSecond: 400 });
  });

  it("is null when no level meets the SLO", () => {
    const s = summarizeRun([at(1, 10), at(2, 5)]);
    expect(s.capacity).toBeNull();
    expect(s.goodputPeak).toBeNull();
  });
});
