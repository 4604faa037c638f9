import { describe, expect, it } from "vitest";
import { seededRandom } from "../random/index.ts";
import { runKey } from "../run/index.ts";
import type { SameModel } from "../same-model/index.ts";
import { standingOf } from "../standing/index.ts";
import { syntheticRun } from "../synthetic/index.ts";
import { sharesOf } from "../tool-calls/index.ts";
import { indexEntryFor, type RunIndexEntry } from "./index.ts";
import { historyPoint, mergeSummary, type SeriesSummary, summarize, summaryServes } from "./summary.ts";

const doc = syntheticRun({
  targetId: "t",
  startedAt: "2026-01-01T00:00:00Z",
  singleStreamTokensPerSecond: 80,
  ttftMs: 200,
  saturationStreams: 8,
});
const base = indexEntryFor(runKey(doc), doc);
const verdict: SameModel = {
  reference: "ref",
  verdict: "same",
  pValue: 0.5,
  reason: "no difference",
  samples: 20,
  cause: "no_difference",
  rawPValue: 0.5,
  referenceSamples: 20,
  runId: "x",
  referenceRunId: "y",
};

/** Run i of a seeded series: every 5 hours, some failed, some invalid, some with tool calls or a verdict. */
function entry(i: number, random: () => number): RunIndexEntry {
  const startedAt = new Date(Date.UTC(2026, 0, 1) + i * 5 * 3600_000).toISOString();
  const runId = `r${i}`;
  const status = random() < 0.2 ? "failed" : "complete";
  const invalid = random() < 0.2;
  return {
    ...base,
    runId,
    startedAt,
    finishedAt: startedAt,
    key: runKey({ targetId: "t", startedAt, runId }),
    status,
    levels: base.levels.map((l) => ({ ...l, valid: !invalid })),
    ...(random() < 0.1
      ? { toolCalls: { suite: "tools-v2", support: "supported" as const, shares: sharesOf([]) } }
      : {}),
    ...(random() < 0.1 ? { sameModel: { ...verdict, runId } } : {}),
  };
}

describe("series summary", () => {
  it("merged run by run (out of order, some recorded again), equals the summary of every entry", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const random = seededRandom(seed);
      const runs = Array.from({ length: 150 }, (_, i) => entry(i, random));
      const all = new Map<string, RunIndexEntry>();
      let summary: SeriesSummary | null = null;
      let derived = 0;
      // Mostly in order, now and then a batch recorded late, and a run recorded again with a verdict.
      for (let i = 0; i < runs.length; i += 1 + Math.floor(random() * 3)) {
        const batch = runs.slice(i, i + 1 + Math.floor(random() * 3));
        if (random() < 0.3 && all.size > 0) {
          const back = [...all.values()][Math.floor(random() * all.size)] as RunIndexEntry;
          batch.push({ ...back, sameModel: { ...verdict, runId: back.runId } });
        }
        for (const e of batch) all.set(e.key, e);
        const merged: SeriesSummary | null = summary && mergeSummary(summary, batch);
        if (!merged) derived++;
        summary = merged ?? summarize([...all.values()]);
        expect(summary).toEqual(summarize([...all.values()]));
      }
      // Merging is the rule, deriving again from every entry the exception.
      expect(derived).toBeLessThan(all.size / 4);
    }
  });

  it("keeps the newest run, the standing's candidates, the newest tool-call run and verdict, and a bounded history", () => {
    const random = seededRandom(7);
    // The newest tool-call run and verdict well before the standing's window.
    const runs = Array.from({ length: 400 }, (_, i) => entry(i, random)).map((e, i) =>
      i < 350 ? e : { ...e, toolCalls: undefined, sameModel: undefined },
    );
    const s = summarize(runs);
    const newest = runs.at(-1) as RunIndexEntry;
    expect(s.runs).toBe(400);
    expect(s.entries.at(-1)).toEqual(newest);
    const last = (keep: (e: RunIndexEntry) => boolean) => runs.filter(keep).at(-1)?.key;
    expect(s.entries.map((e) => e.key)).toContain(last((e) => e.toolCalls !== undefined));
    expect(s.entries.map((e) => e.key)).toContain(last((e) => e.sameModel !== undefined));
    // A series of 400 runs keeps a few dozen: what a page listing it needs.
    expect(s.entries.length).toBeLessThanOrEqual(24 + 3);
    expect(s.history.length).toBeLessThan(60);
    expect(s.history).toEqual(runs.slice(-s.history.length).map(historyPoint));
    for (const hours of [0, 30, 71, 72, 73, 1000]) {
      const now = new Date(Date.parse(newest.startedAt) + hours * 3_600_000).toISOString();
      expect(summaryServes(s, now, { windowHours: 72, maxRuns: 24 })).toBe(true);
      expect(standingOf("t", s.entries, { now })).toEqual(standingOf("t", runs, { now }));
    }
  });

  it("serves a build only within the window it kept, and not before its newest run", () => {
    const random = seededRandom(8);
    const s = summarize(Array.from({ length: 50 }, (_, i) => entry(i, random)));
    const newest = s.entries.at(-1) as RunIndexEntry;
    expect(summaryServes(s, newest.startedAt, { windowHours: 72, maxRuns: 24 })).toBe(true);
    expect(summaryServes(s, newest.startedAt, { windowHours: 168, maxRuns: 24 })).toBe(false);
    expect(summaryServes(s, newest.startedAt, { windowHours: 72, maxRuns: 48 })).toBe(false);
    expect(summaryServes(s, "2026-01-01T00:00:00Z", { windowHours: 72, maxRuns: 24 })).toBe(false);
  });
});
