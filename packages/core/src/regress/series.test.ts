/** @module Which runs and levels the regression series read: complete runs with a valid level, valid levels only. */
import { describe, expect, it } from "vitest";
import type { LevelFigures, RunIndexEntry } from "../history/index.ts";
import { isJudged, metricValue } from "./series.ts";

const level = (concurrency: number, valid: boolean): LevelFigures => ({
  concurrency,
  aggregateOutputTokensPerSecond: 50 * concurrency,
  perStreamOutputTokensPerSecondP50: 50,
  ttftP50Ms: 100,
  ttftP95Ms: 120,
  ttftP99Ms: 130,
  e2eP50Ms: null,
  e2eP95Ms: null,
  e2eP99Ms: null,
  sent: 64,
  ok: 64,
  rateLimited: valid ? 0 : 9,
  valid,
  invalidReasons: valid ? [] : ["rate-limited"],
  goodputOutputTokensPerSecond: null,
});

function entry(invalidAt: number[], status: "complete" | "partial" = "complete"): RunIndexEntry {
  const levels = [1, 2, 4].map((n) => level(n, !invalidAt.includes(n)));
  return {
    key: "runs/t/x.json",
    targetId: "t",
    runId: "x",
    label: "t",
    model: "m",
    route: { gateway: "direct" },
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:00:00.000Z",
    status,
    partialReason: null,
    simulated: true,
    summary: {
      singleStream: { outputTokensPerSecond: 50, decodeTokensPerSecond: 55, ttftP50Ms: 100, ttftP95Ms: 120 },
      peak: null,
      kneeConcurrency: null,
      saturated: false,
      scalingEfficiency: null,
      errorRate: 0,
      rateLimitRate: 0,
      valid: invalidAt.length === 0,
    },
    levels,
    servedProviders: [],
  };
}

describe("regression series", () => {
  it("judge a complete run with an invalid top level on its valid levels", () => {
    const e = entry([4]);
    expect(isJudged(e)).toBe(true);
    expect(metricValue(e, "singleStreamOutputTokensPerSecond")).toBe(50);
  });

  it("skip an invalid level 1, and runs without a valid level or not complete", () => {
    expect(metricValue(entry([1]), "singleStreamOutputTokensPerSecond")).toBeNull();
    expect(metricValue(entry([1]), "singleStreamTtftP50Ms")).toBeNull();
    expect(isJudged(entry([1, 2, 4]))).toBe(false);
    expect(isJudged(entry([], "partial"))).toBe(false);
  });
});
