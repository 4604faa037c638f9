/**
 * @module Run documents and index entries of earlier schema versions read as today's (version 4):
 * version 1's levels named by `concurrency`, version 2's conversation levels as closed loads, version
 * 3's kind figures flat on a level (docs/run-document.md). Each step is applied in turn before the
 * schema validates the document.
 */
import { conversationLoadOfV2, nestLevelFiguresV3 } from "../kinds/index.ts";

type Json = Record<string, unknown>;
const isJson = (x: unknown): x is Json => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Version 1 levels (a document's, or an index entry's figures) and the summary naming them, as
 * version 2 (docs/run-document.md#version-1): a level's `ratePerSecond` (a number) made it an open
 * loop, whose `concurrency` held the level's number; otherwise `concurrency` was N, and the level's
 * number is its place among the levels by N. Each level, `peak`, `goodputPeak` and `stop` then carry
 * `level` and `load` instead of `concurrency` (and `ratePerSecond`); an open loop's `kneeConcurrency`
 * (a level number in documents stored before `kneeRequestsPerSecond`) becomes null. `numberOf` maps a
 * version 1 `concurrency` (as samples name their level) to the level's number.
 */
export function upgradeLevelsV1(
  levels: unknown[],
  summary: unknown,
): { levels: unknown[]; summary: unknown; numberOf: (concurrency: unknown) => unknown } {
  const rateOf = (l: unknown) => (isJson(l) && typeof l.ratePerSecond === "number" ? l.ratePerSecond : null);
  const open = levels.some((l) => rateOf(l) !== null);
  const ns = [...new Set(levels.map((l) => (isJson(l) ? l.concurrency : undefined)))]
    .filter((n): n is number => typeof n === "number")
    .sort((a, b) => a - b);
  const numberOf = (n: unknown): unknown => {
    if (open || typeof n !== "number") return n;
    const at = ns.indexOf(n);
    // A level the document does not hold (none is written so): its number among the levels it does.
    return at >= 0 ? at + 1 : ns.filter((m) => m < n).length + 1;
  };
  const ref = (n: unknown, rate: unknown) => {
    const level = levels.find((l) => isJson(l) && l.concurrency === n);
    const ratePerSecond = typeof rate === "number" ? rate : rateOf(level);
    const load =
      open && ratePerSecond !== null
        ? { kind: "open", arrival: "poisson", ratePerSecond }
        : { kind: "closed", concurrency: n };
    return { level: numberOf(n), load };
  };
  const upgrade = (x: unknown) => {
    if (!isJson(x) || "load" in x) return x;
    const { concurrency, ratePerSecond, ...others } = x;
    return { ...ref(concurrency, ratePerSecond), ...others };
  };
  const upgradedSummary = isJson(summary)
    ? {
        ...summary,
        peak: upgrade(summary.peak),
        goodputPeak: upgrade(summary.goodputPeak),
        stop: upgrade(summary.stop),
        ...(open && summary.kneeRequestsPerSecond === undefined ? { kneeConcurrency: null } : {}),
      }
    : summary;
  return { levels: levels.map((l) => upgrade(l)), summary: upgradedSummary, numberOf };
}

/**
 * A version 2 document's conversation levels as version 3 names them: a level that held conversations
 * (its `conversation` figures set) offered a conversation load of its N and turns, not a closed one;
 * the summary's peaks and stop name the same loads.
 */
export function upgradeLevelsV2(levels: unknown[], summary: unknown): { levels: unknown[]; summary: unknown } {
  const talks = new Map<unknown, unknown>();
  const upgraded = levels.map((l) => {
    const load = isJson(l) ? conversationLoadOfV2(l) : null;
    if (!isJson(l) || load === null) return l;
    talks.set(l.level, load);
    return { ...l, load };
  });
  const ref = (x: unknown) => (isJson(x) && talks.has(x.level) ? { ...x, load: talks.get(x.level) } : x);
  const upgradedSummary = isJson(summary)
    ? { ...summary, peak: ref(summary.peak), goodputPeak: ref(summary.goodputPeak), stop: ref(summary.stop) }
    : summary;
  return { levels: upgraded, summary: upgradedSummary };
}

/**
 * A version 3 document's levels as version 4 has them: the figures only a kind has, flat on a
 * version 3 level, nested under the kind of the level's load (`nestLevelFiguresV3`,
 * docs/run-document.md#version-3). A run index entry keeps its compact figures as they were.
 */
export function upgradeLevelsV3(levels: unknown[]): unknown[] {
  return levels.map(nestLevelFiguresV3);
}

/**
 * A run document of any version as version 4, before it is validated: a version 1 document's levels,
 * summary and samples are upgraded to version 2 (`upgradeLevelsV1`; samples name their level's
 * number), a version 2 document's conversation levels to version 3 (`upgradeLevelsV2`), a version 3
 * document's levels to version 4 (`upgradeLevelsV3`), each step setting `schemaVersion`; anything else
 * is returned as it is, for the schema to judge.
 */
export function upgradeRunDocument(input: unknown): unknown {
  if (!isJson(input) || !Array.isArray(input.levels)) return input;
  let doc = input;
  if (doc.schemaVersion === 1) {
    const { levels, summary, numberOf } = upgradeLevelsV1(doc.levels as unknown[], doc.summary);
    const samples = Array.isArray(doc.samples)
      ? doc.samples.map((s) => (isJson(s) ? { ...s, level: numberOf(s.level) } : s))
      : doc.samples;
    doc = { ...doc, schemaVersion: 2, levels, summary, samples };
  }
  if (doc.schemaVersion === 2) {
    const { levels, summary } = upgradeLevelsV2(doc.levels as unknown[], doc.summary);
    doc = { ...doc, schemaVersion: 3, levels, summary };
  }
  if (doc.schemaVersion !== 3) return doc;
  return { ...doc, schemaVersion: 4, levels: upgradeLevelsV3(doc.levels as unknown[]) };
}
