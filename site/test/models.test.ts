/** Model grouping, the leaderboard at one level, the SLO in words and the cost note, on synthetic runs. */
import { DEFAULT_STANDING } from "@kneeboard/core/config";
import { indexEntryFor } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { describe, expect, it } from "vitest";
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
import { modelCharts } from "../src/lib/target-charts.ts";

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
    history: entries.map(historyPoint),
    standing: standingOf(id, entries, { now: NOW, config: DEFAULT_STANDING }),
  };
}

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
    for (const svg of [charts?.aggregate, charts?.perStream, charts?.tradeoff]) {
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
    expect((await modelCharts([bad]))["llama-8b"]).toEqual({ aggregate: null, perStream: null, tradeoff: null });
  });
});
