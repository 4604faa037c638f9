/** @module Tests of a request's figures on hand-made chunks with exact expected numbers, answer TTFT included. */
import { describe, expect, it } from "vitest";
import { calmLevel, sample } from "./sample.fixture.ts";
import { deriveSampleFigures } from "./sample.ts";

const level = calmLevel;

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
