/** @module A conversation level's figures by turn and the cache verdict, from made-up samples: each rule at its edge. */
import { describe, expect, it } from "vitest";
import type { Sample } from "../run/index.ts";
import { conversationFigures, MIN_TURN_SAMPLES } from "./conversation.ts";
import { sample } from "./sample.fixture.ts";

/** `n` ok samples of each turn, TTFT and prompt tokens by turn, cached tokens by turn (null: not reported). */
function turns(
  ttftMs: number[],
  promptTokens: number[],
  cached: (number | null)[] = ttftMs.map(() => null),
  n = MIN_TURN_SAMPLES,
): Sample[] {
  return ttftMs.flatMap((ttft, i) =>
    Array.from({ length: n }, () =>
      sample({
        turn: i + 1,
        ttftMs: ttft,
        promptTokens: promptTokens[i] as number,
        cachedPromptTokens: cached[i] ?? null,
      }),
    ),
  );
}

const PROMPTS = [200, 300, 400, 500];
const talk = { turns: 4, thinkSeconds: 0 };

describe("conversation figures", () => {
  it("give TTFT, prompt tokens and cached share by turn, and the later turns' TTFT", () => {
    const figures = conversationFigures(turns([100, 50, 60, 70], PROMPTS, [0, 200, 300, 400]), talk);
    expect(figures.byTurn.map((t) => [t.turn, t.n, t.ttftMs.p50, t.promptTokensP50, t.cachedPromptTokenShare])).toEqual(
      [
        [1, 3, 100, 200, 0],
        [2, 3, 50, 300, 2 / 3],
        [3, 3, 60, 400, 0.75],
        [4, 3, 70, 500, 0.8],
      ],
    );
    expect(figures.laterTurnsTtftMs.p50).toBe(60);
    expect(figures.cache.verdict).toBe("reported");
  });

  it("without cached tokens, compare the last turn with turn 2: growth at a quarter of the prompt's growth is no cache seen", () => {
    // Turn 4's prompt is 500 / 300 of turn 2's: the threshold is 1 + (5/3 - 1) / 4 = 7/6.
    const at = (ratio: number) => conversationFigures(turns([100, 120, 130, 120 * ratio], PROMPTS), talk).cache;
    expect(at(7 / 6 + 1e-9)).toMatchObject({ verdict: "no_cache_seen", fromTurn: 2, toTurn: 4 });
    expect(at(7 / 6 - 1e-3)).toMatchObject({ verdict: "not_reported", fromTurn: 2, toTurn: 4 });
    expect(at(7 / 6).growthThreshold).toBeCloseTo(7 / 6, 12);
    // Zero cached tokens are no cache reported either.
    const zero = conversationFigures(turns([100, 120, 130, 200], PROMPTS, [0, 0, 0, 0]), talk).cache;
    expect(zero.verdict).toBe("no_cache_seen");
  });

  it("reads the ratio off a robust line through every sample of the compared turns, so a few queued requests do not flip it", () => {
    // A no-cache route's N = 4 level on a loaded machine (npm start, 2026-12-06): two of turn 2's
    // four requests queued, and turn 2's p50 (85.5 ms) nearly matched turn 4's (87 ms).
    const measured: [number, number, number][] = [
      ...[44, 45, 45, 46].map((t) => [1, t, 160] as [number, number, number]),
      ...[100, 71, 127, 60].map((t) => [2, t, 217] as [number, number, number]),
      ...[74, 73, 75, 87].map((t) => [3, t, 274] as [number, number, number]),
      ...[87, 87, 87, 86].map((t) => [4, t, 331] as [number, number, number]),
    ];
    const samples = measured.map(([turn, ttftMs, promptTokens]) => sample({ turn, ttftMs, promptTokens }));
    expect(conversationFigures(samples, talk).cache).toMatchObject({
      verdict: "no_cache_seen",
      fromTurn: 2,
      toTurn: 4,
    });
    // A cache's flat turns stay flat with one queued request among them.
    const flat = [40, 41, 200, 42, 41, 42, 40, 43, 42, 41, 43, 40].map((ttftMs, i) =>
      sample({ turn: 2 + Math.floor(i / 4), ttftMs, promptTokens: 217 + 57 * Math.floor(i / 4) }),
    );
    expect(conversationFigures(flat, { turns: 4, thinkSeconds: 0 }).cache.verdict).toBe("not_reported");
  });

  it("cannot tell with too little prompt growth, too few samples, or one turn", () => {
    const flat = conversationFigures(turns([100, 100, 100, 200], [200, 1000, 1100, 1300]), talk).cache;
    // 1300 / 1000 is under 1.4.
    expect(flat).toMatchObject({ verdict: "undetermined", fromTurn: 2, toTurn: 4 });
    const few = conversationFigures(turns([100, 100, 100, 200], PROMPTS, undefined, MIN_TURN_SAMPLES - 1), talk);
    expect(few.cache).toMatchObject({ verdict: "undetermined", fromTurn: null });
    const one = conversationFigures(turns([100], [200]), { turns: 1, thinkSeconds: 0 });
    expect(one.cache.verdict).toBe("undetermined");
    expect(one.laterTurnsTtftMs.p50).toBeNull();
  });

  it("with two turns, compare turn 2 with turn 1", () => {
    const two = conversationFigures(turns([100, 200], [200, 400]), { turns: 2, thinkSeconds: 0 }).cache;
    expect(two).toMatchObject({ verdict: "no_cache_seen", fromTurn: 1, toTurn: 2, ttftRatio: 2, promptRatio: 2 });
  });
});
