/** @module What the regression series read from a run: invalid levels are skipped as the summary skips them. */
import { describe, expect, it } from "vitest";
import type { LevelFigures, RunIndexEntry } from "../run-index/index.ts";
import { isJudged, metricValue } from "./series.ts";

function level(concurrency: number, valid: boolean): LevelFigures {
  return {
    level: Math.log2(concurrency) + 1,
    load: { kind: "closed", concurrency },
    probe: null,
    aggregateOutputTokensPerSecond: 100 * concurrency,
    perStreamOutputTokensPerSecondP50: 100,
    ttftP50Ms: 50,
    ttftP95Ms: 60,
    ttftP99Ms: 70,
    e2eP50Ms: 500,
    e2eP95Ms: 600,
    e2eP99Ms: 700,
    sent: 20,
    ok: valid ? 20 : 10,
    rateLimited: valid ? 0 : 10,
    valid,
    ttftAnswerP50Ms: 50,
    meetsSlo: null,
    meteredUsdPerMillionOutputTokens: null,
    declaredUsdPerMillionOutputTokens: null,
    invalidReasons: valid ? [] : ["rate-limited (429) 10 of 20 sent"],
    goodputOutputTokensPerSecond: null,
    sloFigures: null,
    aggregateWindow: null,
    cachedPromptTokenShare: null,
    reusablePromptTokenShare: null,
    laterTurnsTtftP50Ms: null,
    conversation: null,
  };
}

function entry(levels: LevelFigures[], status: RunIndexEntry["status"] = "complete"): RunIndexEntry {
  return {
    key: "runs/t/1.json",
    targetId: "t",
    scenario: "chat",
    runId: "r",
    label: "t",
    model: "m",
    modelKey: "m",
    slo: null,
    route: { gateway: "direct" },
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:01:00.000Z",
    status,
    partialReason: null,
    simulated: true,
    summary: {
      // As an older summary would have it: single-stream figures even from an invalid level 1.
      singleStream: { outputTokensPerSecond: 100, decodeTokensPerSecond: 110, ttftP50Ms: 50, ttftP95Ms: 60 },
      peak: {
        level: 2,
        load: { kind: "closed", concurrency: 2 },
        aggregateOutputTokensPerSecond: 200,
        perStreamOutputTokensPerSecond: 100,
        window: null,
      },
      kneeConcurrency: null,
      saturated: false,
      scalingEfficiency: 1,
      errorRate: 0.1,
      rateLimitRate: 0.1,
      capacity: null,
      capacityRequestsPerSecond: null,
      goodputPeak: null,
      capacityBracket: null,
      search: null,
      valid: levels.every((l) => l.valid),
      stop: null,
    },
    levels,
    servedProviders: ["p"],
  };
}

describe("series", () => {
  it("judges a complete run with a rate-limited top level on its valid levels", () => {
    const run = entry([level(1, true), level(2, true), level(4, false)]);
    expect(isJudged(run)).toBe(true);
    expect(metricValue(run, "singleStreamOutputTokensPerSecond")).toBe(100);
    expect(metricValue(run, "rateLimitRate")).toBe(0.1);
  });

  it("takes no single-stream figure from an invalid level 1", () => {
    const run = entry([level(1, false), level(2, true)]);
    expect(isJudged(run)).toBe(true);
    expect(metricValue(run, "singleStreamOutputTokensPerSecond")).toBeNull();
    expect(metricValue(run, "singleStreamTtftP50Ms")).toBeNull();
  });

  it("leaves out runs with no valid level and partial runs", () => {
    expect(isJudged(entry([level(1, false), level(2, false)]))).toBe(false);
    expect(isJudged(entry([level(1, true)], "partial"))).toBe(false);
  });
});
