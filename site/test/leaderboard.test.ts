/** @module The leaderboard row's problem text says where and why a sweep stopped, in the CLI's words; model groups keep ranks in order. */

import { seededRandom } from "@kneeboard/core/random";
import type { Stop } from "@kneeboard/core/run";
import { indexEntryFor, type RunIndexEntry } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { describe, expect, it } from "vitest";
import { closed } from "../src/kinds/closed.ts";
import { leaderboardRows, rankedGroups } from "../src/lib/leaderboard.ts";
import type { TargetView } from "../src/lib/site-data.ts";

function view(stop: Stop | null, valid = stop === null): TargetView {
  const latest: RunIndexEntry = {
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
      capacityRequestsPerSecond: null,
      goodputPeak: null,
      capacityBracket: null,
      search: null,
    },
    levels: [],
    servedProviders: [],
  };
  return {
    id: "t",
    scenario: "chat",
    label: "t",
    model: "m",
    simulated: true,
    latest,
    details: null,
    promptTokens: null,
    sameModel: null,
    toolCalls: null,
    history: [],
    standing: standingOf("t", [latest], { now: latest.finishedAt }),
  };
}

describe("leaderboard problem text", () => {
  it("names the stop in words", () => {
    const problem = (stop: Stop) => leaderboardRows([view(stop)])[0]?.problem;
    expect(problem({ level: 4, load: { kind: "closed", concurrency: 8 }, reason: "rate_limited", detail: "..." })).toBe(
      "rate-limited from N=8",
    );
    expect(problem({ level: 1, load: { kind: "closed", concurrency: 1 }, reason: "unreachable", detail: "..." })).toBe(
      "unreachable",
    );
    expect(problem({ level: 2, load: { kind: "closed", concurrency: 2 }, reason: "failures", detail: "..." })).toBe(
      "failing from N=2",
    );
  });

  it("has no problem for a clean run", () => {
    expect(leaderboardRows([view(null)])[0]?.problem).toBeNull();
  });
});

describe("model groups in rank order", () => {
  const row = (id: string, modelKey: string, rank: number | null) => ({ id, modelKey, rank });
  const shape = (rows: ReturnType<typeof row>[]) =>
    rankedGroups(rows).map((g) => `${g.modelKey}:${g.rows.map((r) => r.id).join(",")}/${g.modelRoutes}`);

  it("keeps a model's routes together when no other model ranks between them", () => {
    expect(shape([row("a1", "a", 1), row("b1", "b", 2), row("a2", "a", 2), row("c1", "c", 4)])).toEqual([
      "a:a1,a2/2",
      "b:b1/1",
      "c:c1/1",
    ]);
  });

  it("splits a model whose routes rank apart, so ranks never decrease down the page", () => {
    // The report's case: a model's second route ranks 8, another model's only route 7.
    const groups = rankedGroups([row("x5", "x", 5), row("x8", "x", 8), row("y7", "y", 7), row("x-", "x", null)]);
    expect(groups.map((g) => g.rows.map((r) => r.rank))).toEqual([[5], [7], [8, null]]);
    expect(groups.map((g) => [g.modelKey, g.modelRoutes, g.routesAbove])).toEqual([
      ["x", 3, 0],
      ["y", 1, 0],
      ["x", 3, 1],
    ]);
  });

  it("puts unranked routes last, each model's together", () => {
    const ranks = rankedGroups([
      row("a1", "a", 1),
      row("a-", "a", null),
      row("b2", "b", 2),
      row("c-", "c", null),
      row("b-", "b", null),
    ]).flatMap((g) => g.rows.map((r) => r.id));
    expect(ranks).toEqual(["a1", "b2", "b-", "a-", "c-"]);
  });
});

describe("a route's two numbers and its capacity bracket on the leaderboard", () => {
  /**
   * A target's view over one synthetic run of the given levels, judged at 50 tok/s a stream: the route
   * (80 tok/s alone, saturating at 4) gives about 74, 65 and 40 tok/s at N = 2, 4 and 8, so it meets the SLO up to 4.
   */
  function laddered(id: string, concurrency: number[]): TargetView {
    const doc = syntheticRun({
      targetId: id,
      startedAt: "2026-01-01T00:00:00.000Z",
      concurrency,
      singleStreamTokensPerSecond: 80,
      ttftMs: 200,
      saturationStreams: 4,
      random: seededRandom(7),
    });
    const latest = indexEntryFor(`runs/${id}/1.json`, doc);
    return {
      id,
      scenario: "chat",
      label: id,
      model: "m",
      simulated: true,
      latest,
      details: null,
      promptTokens: null,
      sameModel: null,
      toolCalls: null,
      history: [],
      standing: standingOf(id, [latest], {
        now: latest.finishedAt,
        slo: { minOutputTokensPerSecond: 50, maxTtftMs: null },
      }),
    };
  }
  const ctx = {
    scenario: "chat",
    named: false,
    targetHref: (id: string) => `targets/${id}/`,
    modelHref: (m: string) => `models/${m}/`,
    window: { windowHours: 72, maxRuns: 24 },
    section: false,
  };
  /** Each row's single-stream cell and capacity cell, by target. */
  function cells(views: TargetView[]) {
    const table = closed.board.ranking(views, ctx);
    const at = (name: string) => table.columns.findIndex((c) => c.heading === name);
    return new Map(
      table.groups
        .flatMap((g) => g.rows)
        .map((r) => [r.id, { single: r.cells[at("single-stream tok/s")], capacity: r.cells[at("capacity")] }]),
    );
  }

  it("says 'not measured' for a route without N = 1, and brackets a ladder's capacity to the next level", () => {
    const rows = cells([laddered("no-one", [2, 4, 8]), laddered("both", [1, 2, 4, 8])]);
    expect(rows.get("no-one")?.single).toMatchObject({ kind: "estimate", estimate: null, missing: "not measured" });
    expect(rows.get("both")?.single).toMatchObject({ kind: "estimate" });
    expect(rows.get("both")?.single).not.toHaveProperty("missing");
    expect(rows.get("both")?.capacity).toMatchObject({
      kind: "capacity",
      value: 4,
      text: "4",
      bracket: "[4, 8), ladder",
    });
  });

  it("marks a peak read over its whole level (a synthetic run records no steady window)", () => {
    const table = closed.board.ranking([laddered("whole", [1, 2, 4, 8])], ctx);
    const at = table.columns.findIndex((c) => c.heading === "peak aggregate tok/s");
    expect(table.groups[0]?.rows[0]?.cells[at]).toMatchObject({
      kind: "estimate",
      note: "whole level",
    });
    expect(leaderboardRows([laddered("whole", [1, 2, 4, 8])])[0]?.peakWholeLevel).toBe(true);
  });

  it("says 'not measured above N' where the top level met the SLO, not a bare capacity", () => {
    const rows = cells([laddered("one", [1])]);
    expect(rows.get("one")?.capacity).toMatchObject({ value: 1, text: "1", bracket: "not measured above 1, ladder" });
  });
});
