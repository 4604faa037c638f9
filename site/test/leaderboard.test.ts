/** @module The leaderboard row's problem text says where and why a sweep stopped, in the CLI's words. */

import type { Stop } from "@kneeboard/core/run";
import type { RunIndexEntry } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { describe, expect, it } from "vitest";
import { leaderboardRows } from "../src/lib/leaderboard.ts";
import type { TargetView } from "../src/lib/site-data.ts";

function view(stop: Stop | null, valid = stop === null): TargetView {
  const latest: RunIndexEntry = {
    key: "runs/t/1.json",
    targetId: "t",
    runId: "r",
    label: "t",
    model: "m",
    modelKey: "m",
    slo: null,
    route: { gateway: "direct" },
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:01:00.000Z",
    status: "complete",
    partialReason: null,
    simulated: true,
    summary: {
      singleStream: null,
      peak: null,
      kneeConcurrency: null,
      saturated: false,
      scalingEfficiency: null,
      errorRate: 0,
      rateLimitRate: 0,
      valid,
      stop,
      capacity: null,
      goodputPeak: null,
    },
    levels: [],
    servedProviders: [],
  };
  return {
    id: "t",
    label: "t",
    model: "m",
    simulated: true,
    latest,
    details: null,
    history: [],
    standing: standingOf("t", [latest], { now: latest.finishedAt }),
  };
}

describe("leaderboard problem text", () => {
  it("names the stop in words", () => {
    const problem = (stop: Stop) => leaderboardRows([view(stop)])[0]?.problem;
    expect(problem({ concurrency: 8, reason: "rate_limited", detail: "..." })).toBe("rate-limited from N=8");
    expect(problem({ concurrency: 1, reason: "unreachable", detail: "..." })).toBe("unreachable");
    expect(problem({ concurrency: 2, reason: "failures", detail: "..." })).toBe("failing from N=2");
  });

  it("has no problem for a clean run", () => {
    expect(leaderboardRows([view(null)])[0]?.problem).toBeNull();
  });
});
