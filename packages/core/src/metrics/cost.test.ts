/** @module Tests of a level's cost per million output tokens, its SLO and its goodput on hand-made samples. */
import { describe, expect, it } from "vitest";
import { DEFAULT_SLO } from "./cost.ts";
import { calmLevel, sample } from "./sample.fixture.ts";

const level = calmLevel;

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

  it("with no TTFT limit (maxTtftMs null), judges per-stream speed alone, in meetsSlo and goodput", () => {
    const speedOnly = { minOutputTokensPerSecond: 50, maxTtftMs: null };
    const slow = [sample({ outputTokensPerSecond: 50, ttftMs: 60_000, completionTokens: 10 })];
    expect(level(slow, { slo: speedOnly }).meetsSlo).toBe(true);
    expect(level(slow, { slo }).meetsSlo).toBe(false);
    expect(level(slow, { slo: speedOnly, wallTimeMs: 1000 }).goodputOutputTokensPerSecond).toBe(10);
    expect(level([sample({ outputTokensPerSecond: 49.99 })], { slo: speedOnly }).meetsSlo).toBe(false);
  });

  it("judges TTFT at p95: one slow request in twenty-one does not fail the level, two do", () => {
    const quick = Array.from({ length: 19 }, () => sample({ ttftMs: 100 }));
    expect(level([...quick, sample({ ttftMs: 100 }), sample({ ttftMs: 900 })], { slo }).meetsSlo).toBe(true);
    expect(level([...quick, sample({ ttftMs: 900 }), sample({ ttftMs: 900 })], { slo }).meetsSlo).toBe(false);
  });

  it("counts a failed request as a miss: TTFT +Infinity at p95, 0 tok/s at the per-stream p50", () => {
    // Twenty requests, the slowest one late (900 ms): p95 = 390 + 0.05 x (900 - 390) = 415.5 ms, over 400.
    const quick = Array.from({ length: 18 }, () => sample({ ttftMs: 100 }));
    const honest = level([...quick, sample({ ttftMs: 390 }), sample({ ttftMs: 900 })], { slo });
    // The same route failing its slowest request instead of serving it late.
    const failing = level([...quick, sample({ ttftMs: 390 }), sample({ outcome: "timeout", ttftMs: null })], { slo });
    expect(honest.meetsSlo).toBe(false);
    expect(honest.sloFigures?.ttftP95Ms).toBeCloseTo(415.5, 9);
    // Over the ok requests alone it would meet: p95 of 18 x 100 and one 390 is 100 + 0.1 x 290 = 129 ms.
    expect(failing.ttftMs.p95).toBeCloseTo(129, 9);
    expect(failing.sloFigures).toEqual({
      requests: 20,
      failed: 1,
      ttftP95Ms: null,
      perStreamOutputTokensPerSecondP50: 100,
    });
    expect(failing.meetsSlo).toBe(false);
    // Half the requests failed: the per-stream p50 counts them as 0 tok/s.
    const half = level([sample(), sample(), sample({ outcome: "http_error" }), sample({ outcome: "network" })], {
      slo,
    });
    expect(half.perStream.outputTokensPerSecond.p50).toBe(100);
    expect(half.sloFigures?.perStreamOutputTokensPerSecondP50).toBe(50);
    expect(half.sloFigures?.ttftP95Ms).toBeNull();
    expect(half.meetsSlo).toBe(false);
  });

  it("counts only the tokens of requests that each met the SLO, over the wall time, times the ok share", () => {
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
    // Four of five came back ok: the failed one is charged about an average request's time.
    expect(l.goodputOutputTokensPerSecond).toBeCloseTo((150 / 2) * (4 / 5), 12);
    expect(l.aggregateOutputTokensPerSecond).toBe(220 / 2);
    expect(level([sample({ outcome: "timeout" })]).goodputOutputTokensPerSecond).toBeNull();
  });
});
