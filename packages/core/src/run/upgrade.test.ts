/**
 * @module Version 1 run documents and index entries (written by the code before loads, kept in `v1/`)
 * read as version 2: each equals what today's code writes for the same run, and a folder of them
 * indexes and ranks the same as a folder of today's documents.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { seededRandom } from "../random/index.ts";
import { indexEntryFor, RunIndexEntry, syncIndex } from "../run-index/index.ts";
import { StoreRunIndex } from "../run-index/store.ts";
import { standings } from "../standing/index.ts";
import { FolderStore } from "../store/folder.ts";
import { listRunKeys, readRun } from "../store/index.ts";
import { type SyntheticRunOptions, syntheticRun } from "../synthetic/index.ts";
import { loadWords, RunDocument, runKey, stopLabel } from "./index.ts";

/** The options the `v1/` documents were written with (by `syntheticRun` before loads), by file name. */
const base = { singleStreamTokensPerSecond: 80, ttftMs: 200, saturationStreams: 4, pricing: { hourlyUsd: 2 } };
const startedAt = "2026-01-01T00:00:00.000Z";
/** Each run's options, and the seed of its generator (a fresh one per document: a generator is used up). */
const written: Record<string, Omit<SyntheticRunOptions, "random"> & { seed: number }> = {
  closed: { ...base, targetId: "v1-closed", startedAt, concurrency: [1, 2, 4, 8], seed: 1 },
  open: { ...base, targetId: "v1-open", startedAt, ratesPerSecond: [1, 2, 4], seed: 2 },
  partial: { ...base, targetId: "v1-partial", startedAt, concurrency: [1, 2], status: "partial", seed: 3 },
  stop: {
    ...base,
    targetId: "v1-stop",
    startedAt,
    concurrency: [1, 2, 4, 8],
    rateLimitRate: 0.04,
    seed: 11,
  },
  "open-stop": {
    ...base,
    targetId: "v1-open-stop",
    startedAt,
    ratesPerSecond: [1, 2, 4],
    rateLimitRate: 0.04,
    seed: 8,
  },
};
const names = Object.keys(written);

const v1 = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`./v1/${name}.json`, import.meta.url), "utf8"));
/** Today's document of the same run. */
const today = (name: string, over: Partial<SyntheticRunOptions> = {}): RunDocument => {
  const { seed, ...options } = written[name] as (typeof written)[string];
  return syntheticRun({ ...options, random: seededRandom(seed), ...over });
};
/**
 * Today's document of the same run, as a reader parses it (defaults applied, JSON numbers), with the
 * SLO's verdicts as version 1 stored them: since `sloFigures` a failed request counts as a miss, and a
 * stored document keeps the verdicts it was written with (its SLO figures null); and without the
 * figures recorded since (the steady window's headline: a stored document reads its whole level's).
 */
const v2 = (name: string): RunDocument => {
  const doc = RunDocument.parse(JSON.parse(JSON.stringify(today(name))));
  const stored = RunDocument.parse(v1(name));
  return {
    ...doc,
    levels: doc.levels.map((l, i) => {
      const { meetsSlo, goodputOutputTokensPerSecond } = stored.levels[i] as RunDocument["levels"][number];
      return {
        ...l,
        sloFigures: null,
        meetsSlo,
        goodputOutputTokensPerSecond,
        steadyCompletions: null,
        headlineAggregateOutputTokensPerSecond: null,
        aggregateWindow: null,
      };
    }),
    summary: {
      ...doc.summary,
      peak: doc.summary.peak && { ...doc.summary.peak, window: null },
      capacity: stored.summary.capacity,
      capacityBracket: stored.summary.capacityBracket,
      goodputPeak: stored.summary.goodputPeak,
    },
  };
};
/** The harness names the node that wrote the document: not part of the run. */
const sameHarness = (doc: RunDocument): RunDocument => ({ ...doc, harness: { ...doc.harness, node: "v" } });

describe("a version 1 run document", () => {
  it.each(names)("%s: reads as the version 2 document today's code writes for the same run", (name) => {
    // Prepare
    const old = v1(name);
    expect(old.schemaVersion).toBe(1);
    // Act
    const upgraded = RunDocument.parse(old);
    // Assess
    expect(sameHarness(upgraded)).toEqual(sameHarness(v2(name)));
  });

  it("maps a closed loop's N to a numbered closed load, and its samples to the level's number", () => {
    const doc = RunDocument.parse(v1("stop"));
    expect(doc.schemaVersion).toBe(4);
    expect(doc.levels.map((l) => [l.level, loadWords(l.load)])).toEqual([
      [1, "N=1"],
      [2, "N=2"],
      [3, "N=4"],
      [4, "N=8"],
    ]);
    expect(new Set(doc.samples.map((s) => s.level))).toEqual(new Set([1, 2, 3, 4]));
    expect(doc.summary.stop).toMatchObject({
      level: 3,
      load: { kind: "closed", concurrency: 4 },
      reason: "rate_limited",
    });
    expect(stopLabel(doc.summary.stop as NonNullable<RunDocument["summary"]["stop"]>)).toBe("rate-limited from N=4");
    expect(doc.summary.peak).toMatchObject({ level: 4, load: { kind: "closed", concurrency: 8 } });
  });

  it("maps an open loop's numbered level and rate to an open load", () => {
    const doc = RunDocument.parse(v1("open-stop"));
    expect(doc.levels.map((l) => [l.level, l.load])).toEqual([
      [1, { kind: "open", arrival: "poisson", ratePerSecond: 1 }],
      [2, { kind: "open", arrival: "poisson", ratePerSecond: 2 }],
      [3, { kind: "open", arrival: "poisson", ratePerSecond: 4 }],
    ]);
    expect(doc.summary.stop).toMatchObject({ level: 2, load: { kind: "open", ratePerSecond: 2 } });
    expect(doc.summary.peak).toMatchObject({ level: 3, load: { kind: "open", ratePerSecond: 4 } });
    expect(doc.summary.kneeConcurrency).toBeNull();
  });

  it("of an open loop stored before figures named their rate takes the rate from the level", () => {
    const old = v1("open");
    const summary = old.summary as Record<string, Record<string, unknown>>;
    const { ratePerSecond: _, ...peak } = summary.peak as Record<string, unknown>;
    const doc = RunDocument.parse({ ...old, summary: { ...summary, peak } });
    expect(doc.summary.peak?.load).toEqual({ kind: "open", arrival: "poisson", ratePerSecond: 4 });
  });

  it("that is malformed is still refused, naming the path", () => {
    const old = v1("closed");
    const levels = old.levels as Record<string, unknown>[];
    const result = RunDocument.safeParse({ ...old, levels: [{ ...levels[0], concurrency: "eight" }] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path.slice(0, 2)).toEqual(["levels", 0]);
  });
});

describe("a version 1 index entry", () => {
  const entries: unknown[] = JSON.parse(readFileSync(new URL("./v1/index-entries.json", import.meta.url), "utf8"));

  it.each(names.map((n, i) => [n, i] as const))("%s: reads as the entry today's code records", (name, i) => {
    const doc = v2(name);
    expect(RunIndexEntry.parse(entries[i])).toEqual(RunIndexEntry.parse(indexEntryFor(runKey(doc), doc)));
  });
});

describe("a folder of version 1 documents", () => {
  let dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    dirs = [];
  });

  async function folderOf(docs: unknown[]): Promise<FolderStore> {
    const dir = await mkdtemp(join(tmpdir(), "kneeboard-v1-"));
    dirs.push(dir);
    const store = new FolderStore(dir);
    for (const doc of docs) {
      await store.put(runKey(doc as RunDocument), `${JSON.stringify(doc, null, 1)}\n`);
    }
    return store;
  }

  it("indexes, reads and ranks the same as the same runs written today", async () => {
    // Prepare: the same runs, once as stored before loads, once as written today.
    const old = await folderOf(names.map(v1));
    const current = await folderOf(names.map(v2));
    // (today's documents with the verdicts version 1 stored: see `v2`)
    const oldIndex = new StoreRunIndex(old);
    const todayIndex = new StoreRunIndex(current);
    // Act
    expect(await syncIndex(old, oldIndex)).toEqual({ added: names.length, skipped: 0 });
    await syncIndex(current, todayIndex);
    // Assess
    const keys = await listRunKeys(old);
    expect(keys).toHaveLength(names.length);
    for (const key of keys)
      expect(sameHarness(await readRun(old, key))).toEqual(sameHarness(await readRun(current, key)));
    const options = { now: "2026-01-02T00:00:00.000Z" };
    expect(standings(await oldIndex.entries(), options)).toEqual(standings(await todayIndex.entries(), options));
  });

  it("keeps an index recorded before loads readable, and accepts a new run beside it", async () => {
    const store = await folderOf([v1("closed")]);
    // The folder index as version 1 wrote it.
    const entries: unknown[] = JSON.parse(readFileSync(new URL("./v1/index-entries.json", import.meta.url), "utf8"));
    await store.put("index/runs/v1-closed.json", JSON.stringify([entries[0]]));
    const index = new StoreRunIndex(store);
    const fresh = today("closed", { startedAt: "2026-01-01T06:00:00.000Z" });
    await index.record(indexEntryFor(runKey(fresh), fresh));
    const all = await index.entries("v1-closed");
    expect(all.map((e) => e.levels.map((l) => loadWords(l.load)))).toEqual([
      ["N=1", "N=2", "N=4", "N=8"],
      ["N=1", "N=2", "N=4", "N=8"],
    ]);
  });
});
