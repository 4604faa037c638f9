/** The standing on the site without a browser: leaderboard rows, the downloads that carry it, the median-curve chart. */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { concurrencyOf, loadPosition } from "@kneeboard/core/run";
import { indexEntryFor, type RunIndexEntry, saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { standingOf } from "@kneeboard/core/standing";
import { FolderStore } from "@kneeboard/core/store/folder";
import { seededRandom, syntheticRun } from "@kneeboard/reference";
import { describe, expect, it } from "vitest";
import { runsCsv, standingCsv } from "../src/build/downloads.ts";
import { standingCurvesSpec } from "../src/lib/charts/index.ts";
import { fmtEstimate } from "../src/lib/format.ts";
import { leaderboardRows } from "../src/lib/leaderboard.ts";
import { historyPoint, loadSiteData, type TargetView } from "../src/lib/site-data.ts";

const NOW = "2026-11-02T00:00:00.000Z";
const random = seededRandom(3);

/** Three runs 6 hours apart before NOW; in the newest, level 32 is invalid (rate-limited). */
function runs(targetId: string, single: number): RunIndexEntry[] {
  return [18, 12, 6].map((hoursAgo, i) => {
    const startedAt = new Date(Date.parse(NOW) - hoursAgo * 3_600_000).toISOString();
    const entry = indexEntryFor(
      `runs/${targetId}/${i}.json`,
      syntheticRun({
        targetId,
        runId: `${targetId}-${i}`,
        startedAt,
        singleStreamTokensPerSecond: single,
        ttftMs: 200,
        saturationStreams: 8,
        noise: 0.1,
        random,
      }),
    );
    if (i === 2) {
      const top = entry.levels.at(-1) as RunIndexEntry["levels"][number];
      top.valid = false;
      top.invalidReasons = ["rate-limited: 9 of 64 sent (over 5 %)"];
    }
    return entry;
  });
}

function view(targetId: string, entries: RunIndexEntry[]): TargetView {
  const latest = entries.at(-1) as RunIndexEntry;
  return {
    id: targetId,
    scenario: "chat",
    label: targetId,
    model: "m",
    simulated: true,
    latest,
    details: null,
    promptTokens: null,
    sameModel: null,
    toolCalls: null,
    history: entries.map(historyPoint),
    standing: standingOf(targetId, entries, { now: NOW }),
  };
}

const a = runs("a", 100);
const b = runs("b", 40);
const targets = [view("b", b), view("a", a)];

/** Splits a CSV without quoted commas (these rows have none) into records by header. */
function records(csv: string): Record<string, string>[] {
  const [head, ...lines] = csv.trim().split("\n");
  const names = (head as string).split(",");
  return lines.map((line) => Object.fromEntries(line.split(",").map((v, i) => [names[i], v])));
}

describe("the leaderboard's rows", () => {
  it("come from the standing, ranked, with invalid levels listed with their reasons", () => {
    const rows = leaderboardRows(targets);
    expect(rows.map((r) => [r.id, r.rankLabel, r.runs])).toEqual([
      ["a", "1", 3],
      ["b", "2", 3],
    ]);
    const row = rows[0];
    expect(row?.peakAggregateTokensPerSecond).toEqual(targets[1]?.standing.peak?.aggregateOutputTokensPerSecond);
    expect(row?.invalidLevels).toEqual([
      { at: "N=32", invalidRuns: 1, runs: 3, reasons: ["rate-limited: 9 of 64 sent (over 5 %)"] },
    ]);
  });
});

describe("the downloads", () => {
  it("runs.csv marks the rows the standing is taken over, so its medians can be recomputed", () => {
    const standings = targets.map((t) => t.standing);
    const rows = records(runsCsv([...a, ...b], standings));
    expect(rows).toHaveLength(2 * 3 * 6);
    for (const t of targets) {
      for (const level of t.standing.levels) {
        const entered = rows
          .filter(
            (r) =>
              r.targetId === t.id && Number(r.concurrency) === concurrencyOf(level.load) && r.inStanding === "true",
          )
          .map((r) => Number(r.aggregateOutputTokensPerSecond))
          .sort((x, y) => x - y);
        expect(entered.length).toBe(level.validRuns);
        // n is 2 or 3 here: the median is the middle value, or the mean of two (CSV keeps 3 decimals).
        const median =
          entered.length % 2
            ? entered[(entered.length - 1) / 2]
            : ((entered[0] as number) + (entered[1] as number)) / 2;
        expect(median).toBeCloseTo(level.aggregateOutputTokensPerSecond?.median as number, 2);
      }
    }
    // The invalid level of the newest run is in the file, not in the standing.
    expect(rows.filter((r) => r.levelValid === "false").map((r) => r.inStanding)).toEqual(["false", "false"]);
  });

  it("standing.csv holds one row per target and level with each estimate", () => {
    const rows = records(standingCsv(targets.map((t) => t.standing)));
    expect(rows).toHaveLength(2 * 6);
    const peakRow = rows.find((r) => r.targetId === "a" && r.isPeak === "true");
    const peak = targets[1]?.standing.peak?.aggregateOutputTokensPerSecond;
    expect(Number(peakRow?.aggregateOutputTokensPerSecondMedian)).toBeCloseTo(peak?.median as number, 2);
    expect(Number(peakRow?.aggregateOutputTokensPerSecondLow)).toBeCloseTo(peak?.low as number, 2);
    expect(Number(peakRow?.aggregateOutputTokensPerSecondN)).toBe(peak?.n);
  });
});

describe("standingCurvesSpec", () => {
  it("draws each ranked level's median with a band from low to high", () => {
    const standing = targets[1]?.standing as TargetView["standing"];
    // biome-ignore lint/suspicious/noExplicitAny: the spec is checked structurally
    const spec: any = standingCurvesSpec({ title: "t", levels: standing.levels, knee: standing.kneeConcurrency });
    const aggregate = spec.layer[0];
    expect(aggregate.layer.map((l: { mark: { type: string } }) => l.mark.type)).toEqual(["area", "line"]);
    expect(aggregate.layer[0].encoding.y.field).toBe("low");
    expect(aggregate.layer[0].encoding.y2.field).toBe("high");
    const ranked = standing.levels.filter((l) => l.ranked);
    expect(aggregate.data.values).toEqual(
      ranked.map((l) => ({ concurrency: loadPosition(l.load), ...l.aggregateOutputTokensPerSecond })),
    );
    expect(fmtEstimate({ median: 1656.2, low: 1590, high: 1702.4 })).toBe("1,656 (1,590-1,702)");
  });
});

describe("the site's data per (target, scenario)", () => {
  it("takes each scenario's standing apart and gives the pages the chat scenario, as before scenarios", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kneeboard-site-data-"));
    try {
      const store = new FolderStore(dir);
      const index = new StoreRunIndex(store);
      const doc = (scenario: string, i: number, single: number) =>
        syntheticRun({
          targetId: "t",
          scenario,
          runId: `${scenario}-${i}`,
          startedAt: new Date(Date.parse(NOW) - (i + 1) * 3_600_000).toISOString(),
          singleStreamTokensPerSecond: single,
          ttftMs: 200,
          saturationStreams: 8,
          noise: 0,
          random: seededRandom(i + 1),
        });
      for (let i = 0; i < 3; i++) {
        await saveRun(store, index, doc("chat", i, 100));
        await saveRun(store, index, doc("rag", i, 20));
      }
      const data = await loadSiteData({ store, index, now: NOW });
      expect(data.targets.map((t) => [t.id, t.scenario])).toEqual([["t", "chat"]]);
      expect(data.series.map((t) => [t.id, t.scenario])).toEqual([
        ["t", "chat"],
        ["t", "rag"],
      ]);
      const [chat, rag] = data.series as [TargetView, TargetView];
      expect(chat.standing).toMatchObject({ scenario: "chat", runIds: ["chat-0", "chat-1", "chat-2"] });
      expect(rag.standing).toMatchObject({ scenario: "rag", runIds: ["rag-0", "rag-1", "rag-2"] });
      // Per-stream tok/s (TTFT included) of a 100 and a 20 tok/s decode: the scenarios never mix.
      const single = (v: TargetView) => v.standing.singleStream?.outputTokensPerSecond?.median ?? Number.NaN;
      expect(single(chat)).toBeGreaterThan(80);
      expect(single(rag)).toBeLessThan(20);
      expect(chat.history).toHaveLength(3);
      expect(data.entries.map((e) => e.scenario)).toEqual(["chat", "chat", "chat"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
