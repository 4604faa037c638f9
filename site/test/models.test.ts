/** Model grouping, the leaderboard at one level, the SLO in words and the cost note, on synthetic runs. */
import { DEFAULT_STANDING } from "@kneeboard/core/config";
import { indexEntryFor } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { describe, expect, it } from "vitest";
import { modelCharts } from "../src/build/charts.ts";
import { ratesLeftOut } from "../src/kinds/open.ts";
import {
  atLevelRows,
  capacityTitle,
  costNote,
  curvesLeftOut,
  levelsRun,
  modelGroups,
  sloWords,
} from "../src/lib/models.ts";
import { historyPoint, type TargetView } from "../src/lib/site-data.ts";
import type { ModelCharts } from "../src/lib/site-index.ts";
import { openLoopRun } from "./fixture.ts";

const NOW = "2026-11-02T00:00:00.000Z";

function target(id: string, model: string, single: number, runs = 3, errorRate = 0): TargetView {
  const entries = Array.from({ length: runs }, (_, r) =>
    indexEntryFor(
      `runs/${id}/${r}.json`,
      syntheticRun({
        targetId: id,
        model,
        runId: `${id}-${r}`,
        startedAt: new Date(Date.UTC(2026, 10, 1, 6 * r)).toISOString(),
        singleStreamTokensPerSecond: single,
        ttftMs: 200,
        saturationStreams: 8,
        errorRate,
      }),
    ),
  );
  const latest = entries[entries.length - 1] as (typeof entries)[number];
  return {
    id,
    scenario: "chat",
    label: id,
    model,
    simulated: true,
    latest,
    details: null,
    promptTokens: null,
    sameModel: null,
    toolCalls: null,
    history: entries.map(historyPoint),
    standing: standingOf(id, entries, { now: NOW, config: DEFAULT_STANDING }),
  };
}

/** An open-loop route of model `model` at the given rates, its latest run's levels valid where `valid` says. */
function openRoute(id: string, model: string, rates: number[], valid: boolean[]): TargetView {
  const base = syntheticRun({
    targetId: id,
    model,
    runId: `${id}-0`,
    startedAt: "2026-11-01T00:00:00.000Z",
    singleStreamTokensPerSecond: 100,
    ttftMs: 200,
    saturationStreams: 4,
    concurrency: rates.map((_, i) => i + 1),
  });
  const open = openLoopRun(
    base,
    rates,
    rates.map(() => true),
  );
  const doc = { ...open, levels: open.levels.map((l, i) => ({ ...l, valid: valid[i] ?? true })) };
  const entry = indexEntryFor(`runs/${id}/0.json`, doc);
  const { samples: _s, ...details } = doc;
  return {
    id,
    scenario: "chat",
    label: id,
    model,
    simulated: true,
    latest: entry,
    details: { ...details, key: entry.key },
    history: [historyPoint(entry)],
    standing: standingOf(id, [entry], { now: NOW, config: DEFAULT_STANDING }),
    promptTokens: null,
    sameModel: null,
    toolCalls: null,
  };
}

/** The SVG of a model's figure by id: null when it draws nothing, undefined when the model has no such figure. */
const svgOf = (charts: ModelCharts | undefined, id: string) =>
  charts?.flatMap((s) => s.figures).find((f) => f.id === id)?.svg;

describe("models", () => {
  const a = target("a", "org/llama-8b", 100);
  const b = target("b", "other/llama-8b", 300);
  const c = target("c", "org/qwen", 50);

  it("groups routes of one model, groups and routes in the given order", () => {
    const groups = modelGroups([a, b, c], ["b", "c", "a"]);
    expect(groups.map((g) => [g.modelKey, g.targetIds])).toEqual([
      ["llama-8b", ["b", "a"]],
      ["qwen", ["c"]],
    ]);
    expect(levelsRun([a, c])).toEqual([1, 2, 4, 8, 16, 32]);
  });

  it("ranks the targets at one level by per-stream tok/s, clearly apart when intervals do not overlap", () => {
    const rows = atLevelRows([a, b, c], 16);
    expect(rows.map((r) => r.id)).toEqual(["b", "a", "c"]);
    expect(rows.map((r) => r.rankLabel)).toEqual(["1", "2", "3"]);
    const medians = rows.map((r) => r.perStream?.median ?? 0);
    expect(medians).toEqual([...medians].sort((x, y) => y - x));
    expect(atLevelRows([a], 3)).toEqual([]);
  });

  it("says the SLO in words and notes cost disagreement over 10 %", () => {
    expect(sloWords({ minOutputTokensPerSecond: 20, maxTtftMs: 2000 })).toBe("≥ 20 tok/s, TTFT p95 ≤ 2 s");
    expect(sloWords({ minOutputTokensPerSecond: 24, maxTtftMs: null })).toBe("≥ 24 tok/s, no TTFT limit");
    expect(capacityTitle({ minOutputTokensPerSecond: 30, maxTtftMs: 1500 })).toBe(
      "serves N users at ≥ 30 tok/s, TTFT p95 ≤ 1,500 ms",
    );
    expect(costNote(1.05, 1)).toBeNull();
    expect(costNote(1.2, 1)).toBe("metered 20 % above declared");
    expect(costNote(0.5, 1)).toBe("metered 50 % below declared");
    expect(costNote(null, 1)).toBeNull();
    expect(costNote(1, null)).toBeNull();
  });

  it("leaves invalid levels and routes with none out of a model's curves, and says so", async () => {
    // Half of every request failing: no level of any run is valid.
    const bad = target("bad", "third/llama-8b", 200, 3, 0.5);
    expect(bad.latest.levels.length).toBeGreaterThan(0);
    expect(bad.latest.levels.some((l) => l.valid)).toBe(false);
    const charts = (await modelCharts([a, b, bad]))["llama-8b"];
    for (const svg of ["model-aggregate", "model-perstream", "model-tradeoff"].map((id) => svgOf(charts, id))) {
      expect(svg).toContain('aria-roledescription="line mark"');
      expect(svg).toContain(">a</text>");
      expect(svg).not.toContain(">bad</text>");
    }
    expect(curvesLeftOut([a, b, bad])).toBe(
      "Left out, as invalid levels are never drawn: “bad”, whose latest run has no valid level. The tables below have their figures, marked valid or not.",
    );
    expect(curvesLeftOut([a, b])).toBeNull();
    // A route with some invalid levels keeps its valid ones; the sentence names the others.
    const [first, ...rest] = a.latest.levels;
    const some = {
      ...a,
      latest: { ...a.latest, levels: [{ ...(first as (typeof rest)[number]), valid: false }, ...rest] },
    };
    expect(curvesLeftOut([some])).toContain("the invalid level of “a” (N=1)");
    // Only invalid routes: nothing to draw (the page says so in a sentence).
    const none = (await modelCharts([bad]))["llama-8b"] ?? [];
    expect(none.flatMap((s) => s.figures.map((f) => [f.id, f.svg]))).toEqual([
      ["model-aggregate", null],
      ["model-perstream", null],
      ["model-tradeoff", null],
    ]);
    for (const f of none.flatMap((s) => s.figures)) expect(f.empty).toMatch(/^Nothing to draw: /);
  });

  it("draws an open-loop model's routes against the offered rate, one series per route, invalid rates left out", async () => {
    // Prepare: two routes of one model; route q's highest rate is invalid.
    const p = openRoute("p", "org/open-8b", [0.5, 1, 2], [true, true, true]);
    const q = openRoute("q", "other/open-8b", [0.5, 1, 2, 4], [true, true, true, false]);
    // Act
    const charts = (await modelCharts([p, q]))["open-8b"];
    // Assess: no chart against concurrency; both rate charts drawn, naming both routes.
    expect(charts?.map((s) => s.kind)).toEqual(["open"]);
    expect(svgOf(charts, "model-aggregate")).toBeUndefined();
    expect(svgOf(charts, "model-tradeoff")).toBeUndefined();
    for (const svg of [svgOf(charts, "model-rate-latency"), svgOf(charts, "model-rate-throughput")]) {
      expect(svg).toContain("offered rate (requests/s)");
      expect(svg).toMatch(/>p<\/(text|tspan)>/);
      expect(svg).toMatch(/>q<\/(text|tspan)>/);
      expect(svg).not.toContain("concurrency");
    }
    expect(ratesLeftOut([p, q])).toBe(
      "Left out, as invalid levels are never drawn: the invalid rate of “q” (4 req/s). The table below has their figures, marked valid or not.",
    );
    expect(ratesLeftOut([p])).toBeNull();
    // A model none of whose rates is valid draws nothing.
    const none = openRoute("r", "org/none-8b", [1, 2], [false, false]);
    const noneCharts = (await modelCharts([none]))["none-8b"];
    expect(svgOf(noneCharts, "model-rate-latency")).toBeNull();
    expect(svgOf(noneCharts, "model-rate-throughput")).toBeNull();
    expect(ratesLeftOut([none])).toContain("“r”, whose latest run has no valid rate");
  });
});
