/**
 * @module Version 3 run documents and index entries, whose levels held their kind's own figures flat
 * (`startSpreadMs`, `achievedRatePerSecond`, ..., `reusablePromptTokenShare`), read as version 4, with
 * the same figures nested under the kind of the level's load (docs/run-document.md#version-3).
 */
import { describe, expect, it } from "vitest";
import { seededRandom } from "../random/index.ts";
import { indexEntryFor, RunIndexEntry } from "../run-index/index.ts";
import { syntheticRun } from "../synthetic/index.ts";
import { type Load, RunDocument, upgradeRunDocument } from "./index.ts";

/** The figures version 3 wrote flat on every level, each null where the level's kind had none. */
const FLAT = [
  "startSpreadMs",
  "achievedRatePerSecond",
  "inFlightMean",
  "inFlightMax",
  "scheduleLagMs",
  "reusablePromptTokenShare",
] as const;
const NONE = Object.fromEntries(FLAT.map((k) => [k, null]));

const SCHEDULE = {
  achievedRatePerSecond: 3.9,
  inFlightMean: 1.25,
  inFlightMax: 3,
  scheduleLagMs: { p50: 0.4, p99: 2.1 },
};
const TURNS = {
  turns: 2,
  thinkSeconds: 1,
  byTurn: [1, 2].map((turn) => ({
    turn,
    n: 4,
    ttftMs: { p50: 100 * turn, p95: 120 * turn },
    promptTokensP50: 150 * turn,
    cachedPromptTokenShare: turn > 1 ? 0.5 : null,
  })),
  laterTurnsTtftMs: { p50: 200, p95: 240 },
  cache: {
    verdict: "reported",
    fromTurn: 1,
    toTurn: 2,
    ttftRatio: 2,
    promptRatio: 2,
    growthThreshold: 1.25,
    detail: "the route reported cached prompt tokens",
  },
};

/**
 * Each kind's level as version 3 wrote it: its load, and the flat figures it set (the others null,
 * a conversation's figures by turn in `conversation`); and what version 4 holds under its kind.
 */
const cases: { kind: Load["kind"]; load: Load; flat: Record<string, unknown>; nested: unknown }[] = [
  {
    kind: "closed",
    load: { kind: "closed", concurrency: 1 },
    flat: { startSpreadMs: 250, conversation: null },
    nested: { startSpreadMs: 250 },
  },
  {
    kind: "open",
    load: { kind: "open", arrival: "gamma", ratePerSecond: 4, burstiness: 0.5 },
    flat: { ...SCHEDULE, conversation: null },
    nested: SCHEDULE,
  },
  {
    kind: "trace",
    load: { kind: "trace", speedup: 2 },
    flat: { ...SCHEDULE, reusablePromptTokenShare: 0.42, conversation: null },
    nested: { ...SCHEDULE, reusablePromptTokenShare: 0.42 },
  },
  {
    kind: "conversation",
    load: { kind: "conversation", concurrency: 1, turns: 2 },
    flat: { startSpreadMs: 0, conversation: TURNS },
    nested: { startSpreadMs: 0, ...TURNS },
  },
];

/** A one-level version 3 document of `load`, its level's flat figures `flat`, as JSON read back. */
function v3Document(load: Load, flat: Record<string, unknown>): Record<string, unknown> {
  const today = syntheticRun({
    targetId: "t",
    startedAt: "2026-01-01T00:00:00.000Z",
    singleStreamTokensPerSecond: 80,
    ttftMs: 200,
    saturationStreams: 4,
    concurrency: [1],
    random: seededRandom(3),
  });
  const ref = { level: 1, load };
  const levels = today.levels.map(({ closed: _c, open: _o, trace: _t, conversation: _v, ...level }) => ({
    ...level,
    load,
    ...NONE,
    ...flat,
  }));
  const { peak, goodputPeak } = today.summary;
  return JSON.parse(
    JSON.stringify({
      ...today,
      schemaVersion: 3,
      levels,
      summary: {
        ...today.summary,
        peak: peak && { ...peak, ...ref },
        goodputPeak: goodputPeak && { ...goodputPeak, ...ref },
      },
    }),
  );
}

describe("a version 3 run document", () => {
  it.each(cases)("of a $kind load reads as version 4, its figures under its kind", ({ kind, load, flat, nested }) => {
    const doc = RunDocument.parse(v3Document(load, flat));
    expect(doc.schemaVersion).toBe(4);
    const level = doc.levels[0];
    expect(level?.load).toEqual(load);
    expect(level?.[kind]).toEqual(nested);
    // Every other kind's figures are null, and nothing is left flat.
    for (const other of cases.filter((c) => c.kind !== kind)) expect(level?.[other.kind]).toBeNull();
    const upgraded = upgradeRunDocument(v3Document(load, flat)) as { levels: Record<string, unknown>[] };
    for (const key of FLAT) expect(upgraded.levels[0]).not.toHaveProperty(key);
  });

  it("reads the same figures again once upgraded (version 4 is left as it is)", () => {
    for (const { load, flat } of cases) {
      const once = RunDocument.parse(v3Document(load, flat));
      expect(RunDocument.parse(JSON.parse(JSON.stringify(once)))).toEqual(once);
    }
  });

  it("of a conversation level without figures by turn keeps them null, its other figures dropped", () => {
    const doc = RunDocument.parse(
      v3Document({ kind: "conversation", concurrency: 1, turns: 2 }, { startSpreadMs: 10, conversation: null }),
    );
    expect(doc.levels[0]?.conversation).toBeNull();
    expect(doc.levels[0]?.closed).toBeNull();
  });

  it("that is malformed is still refused, naming the path", () => {
    const bad = v3Document({ kind: "open", arrival: "poisson", ratePerSecond: 1 }, { ...SCHEDULE, inFlightMax: -1 });
    const result = RunDocument.safeParse(bad);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join("."))).toContain("levels.0.open.inFlightMax");
  });
});

describe("a version 3 index entry", () => {
  it.each(cases)(
    "of a $kind load reads back the figures its document's version 4 reading indexes",
    ({ load, flat }) => {
      const doc = RunDocument.parse(v3Document(load, flat));
      const entry = indexEntryFor("runs/t/x.json", doc);
      // As version 3 stored it: the index's compact level figures, flat as they still are.
      const stored = JSON.parse(JSON.stringify(entry));
      expect(RunIndexEntry.parse(stored)).toEqual(entry);
      const level = entry.levels[0];
      expect(level?.reusablePromptTokenShare).toBe(flat.reusablePromptTokenShare ?? null);
      expect(level?.laterTurnsTtftP50Ms).toBe(flat.conversation ? TURNS.laterTurnsTtftMs.p50 : null);
      expect(level?.conversation?.cacheVerdict ?? null).toBe(flat.conversation ? "reported" : null);
    },
  );
});
