/**
 * @module The run index: one small entry per stored run (headline figures and compact per-level
 * figures), so history, the leaderboard and `runs.csv` never need to read every run document.
 * Locally it lives in the store at `index/runs/<targetId>.json`; on AWS in DynamoDB.
 */
import { z } from "zod";
import { DEFAULT_SCENARIO, modelKeyOf } from "../config/index.ts";
import { INDEX_FIELDS, indexFields, kneeInRate } from "../kinds/index.ts";
import { summarizeRun } from "../metrics/index.ts";
import {
  headlineAggregate,
  Load,
  Probe,
  RouteRecord,
  type RunDocument,
  SearchRecord,
  SloFigures,
  SloRecord,
  Summary,
  ToolCallShares,
  upgradeLevelsV1,
  upgradeLevelsV2,
} from "../run/index.ts";
import { SameModel } from "../same-model/index.ts";
import { listRunKeys, putRun, readRun, type Store } from "../store/index.ts";
import { ToolCallsVerdict } from "../tool-calls/verdict.ts";

/** The figures of one level that history and comparison need. Units in the names. */
export const LevelFigures = z.object({
  /** The level's number in its sweep, 1-based (the run document's `levels[].level`). */
  level: z.number().int().positive(),
  /** The load the level offered (the run document's `levels[].load`). */
  load: Load,
  /** A searched level's order and decision (the run document's `levels[].probe`); null for a ladder's and in entries recorded before searches. */
  probe: z.object({ order: z.number().int().positive(), decision: Probe.shape.decision }).nullable().default(null),
  /** The level's headline aggregate (the run document's `headlineAggregate`): its steady window's, or its whole level's where `aggregateWindow` says so. */
  aggregateOutputTokensPerSecond: z.number().nullable(),
  /** Where the aggregate was read: `steady`, or `whole_level` (no steady window); null for a kind without N, and in entries recorded before it. */
  aggregateWindow: z.enum(["steady", "whole_level"]).nullable().default(null),
  perStreamOutputTokensPerSecondP50: z.number().nullable(),
  ttftP50Ms: z.number().nullable(),
  ttftP95Ms: z.number().nullable(),
  ttftP99Ms: z.number().nullable(),
  e2eP50Ms: z.number().nullable(),
  e2eP95Ms: z.number().nullable(),
  e2eP99Ms: z.number().nullable(),
  sent: z.number().int().nonnegative(),
  ok: z.number().int().nonnegative(),
  rateLimited: z.number().int().nonnegative(),
  valid: z.boolean(),
  /** Answer TTFT p50 (reasoning excluded), ms; null in entries recorded before it was. */
  ttftAnswerP50Ms: z.number().nullable().default(null),
  /** The level meets the run's SLO; null when not judged (entries recorded before it was). */
  meetsSlo: z.boolean().nullable().default(null),
  /** Metered cost, USD per million output tokens; null when unmetered. */
  meteredUsdPerMillionOutputTokens: z.number().nullable().default(null),
  /** Declared cost (the target's pricing), USD per million output tokens; null without pricing. */
  declaredUsdPerMillionOutputTokens: z.number().nullable().default(null),
  /** Why the level is not valid, in words; empty when valid (absent from older index entries). */
  invalidReasons: z.array(z.string()).default([]),
  /** Output tok/s of the ok requests that each met the SLO, over the wall time, times the ok share; null when not recorded. */
  goodputOutputTokensPerSecond: z.number().nullable().default(null),
  /** The SLO's figures, a failed request counted as a miss (the run document's `levels[].sloFigures`); null in entries recorded before them. */
  sloFigures: SloFigures.nullable().default(null),
  /** Cached prompt tokens the route reported over prompt tokens (the run document's level figure); null when none reported, and in entries recorded before it was. */
  cachedPromptTokenShare: z.number().nullable().default(null),
  /** Each kind's own fields (a trace replay's reusable share, a conversation's later turns), null on other kinds' levels (`INDEX_FIELDS`). */
  ...INDEX_FIELDS,
});
export type LevelFigures = z.infer<typeof LevelFigures>;

/** One stored run, as the index knows it today. */
const RunIndexEntryV2 = z.object({
  /** The run document's store key. */
  key: z.string(),
  targetId: z.string(),
  /** The run's scenario; `chat` in entries recorded before scenarios. */
  scenario: z.string().default("chat"),
  runId: z.string(),
  label: z.string(),
  model: z.string(),
  /** The model as a reader knows it; null in entries recorded before it was (see `modelKeyOf`). */
  modelKey: z.string().nullable().default(null),
  route: RouteRecord,
  /** The SLO the run's capacity and goodput were judged against; null in entries recorded before it was. */
  slo: SloRecord.nullable().default(null),
  startedAt: z.string(),
  finishedAt: z.string(),
  status: z.enum(["complete", "partial", "failed"]),
  partialReason: z.string().nullable(),
  simulated: z.boolean(),
  summary: Summary,
  levels: z.array(LevelFigures),
  /** Providers that served the run's ok requests, most requests first. */
  servedProviders: z.array(z.string()),
  /** The target was its model's reference route in this run; absent: it was not. */
  reference: z.boolean().optional(),
  /** The run's canary in brief: its prompt set and its ok completions; absent when the run has none. */
  canary: z.object({ promptSet: z.string(), completions: z.number().int().nonnegative() }).optional(),
  /**
   * The same-model verdict on the run's canary, against the reference's latest canary run started by
   * then (`judgeCanaryRuns`, in the first evaluation after the run was indexed); absent until then
   * and for runs without a canary.
   */
  sameModel: SameModel.optional(),
  /** The run's tool-call phase in brief: its suite, whether the route took tools, and the nine shares; absent when the run has none. */
  toolCalls: z
    .object({ suite: z.string(), support: z.enum(["supported", "no-tool-support"]), shares: ToolCallShares })
    .optional(),
  /**
   * The tool-call verdict on the run, against the reference's latest tool-call run started by then
   * (`judgeToolCallRuns`, in the first evaluation after the run was indexed); absent until then and
   * for runs without a tool-call phase.
   */
  toolCallsVerdict: ToolCallsVerdict.optional(),
});

/**
 * An index entry of any version as today's, before it is validated: an entry recorded from a version 1
 * document (its levels name `concurrency`, with an open loop's `ratePerSecond`) is upgraded the way the
 * document is (`upgradeLevelsV1`, docs/run-document.md#version-1), and an entry recorded before
 * conversations were a kind names its conversation levels' loads as version 3 does (`upgradeLevelsV2`);
 * anything else is left as it is.
 */
export function upgradeRunIndexEntry(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const entry = input as Record<string, unknown>;
  if (!Array.isArray(entry.levels)) return input;
  const summary = entry.summary as Record<string, unknown> | null | undefined;
  const named = [summary?.peak, summary?.goodputPeak, summary?.stop].filter((x) => typeof x === "object" && x);
  const v1 = [...entry.levels, ...named].some((x) => typeof x === "object" && x !== null && !("load" in x));
  const v2 = v1 ? upgradeLevelsV1(entry.levels, entry.summary) : { levels: entry.levels, summary: entry.summary };
  const upgraded = upgradeLevelsV2(v2.levels, v2.summary);
  return { ...entry, levels: upgraded.levels, summary: upgraded.summary };
}

/** One stored run, as the index knows it, read from an entry of any version (`upgradeRunIndexEntry`). */
export const RunIndexEntry = z.preprocess(upgradeRunIndexEntry, RunIndexEntryV2);
export type RunIndexEntry = z.infer<typeof RunIndexEntry>;

/**
 * The key of one (target, scenario) series, the unit standing, capacity and regressions are taken
 * over: the target id for `chat` (so keys made before scenarios stay), `<targetId>/<scenario>` else.
 */
export function seriesKey(run: { targetId: string; scenario?: string }): string {
  const scenario = run.scenario ?? DEFAULT_SCENARIO;
  return scenario === DEFAULT_SCENARIO ? run.targetId : `${run.targetId}/${scenario}`;
}

/** Entries grouped by (target, scenario), by `seriesKey`, each group in the order met. */
export function bySeries<T extends { targetId: string; scenario?: string }>(entries: Iterable<T>): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const e of entries) {
    const key = seriesKey(e);
    const list = groups.get(key);
    if (list) list.push(e);
    else groups.set(key, [e]);
  }
  return groups;
}

/** Where run entries are recorded and read back. */
export interface RunIndex {
  /** Records entries; recording the same key again replaces its entry. */
  record(...entries: RunIndexEntry[]): Promise<void>;
  /** Entries of one target (or of all), oldest first per target. */
  entries(targetId?: string): Promise<RunIndexEntry[]>;
  /** Every target with entries, in id order: what a reader walks to read one target at a time. */
  targetIds(): Promise<string[]>;
  /**
   * The summary of each of one target's series (`SeriesSummary`), kept up to date by `record`, by
   * scenario; a target recorded before summaries were kept has its summaries derived from its entries
   * (and kept) the first time they are asked for. None for a target without entries.
   */
  summaries(targetId: string): Promise<SeriesSummary[]>;
}

/** The index entry of a run document stored at key. */
export function indexEntryFor(key: string, doc: RunDocument): RunIndexEntry {
  const served = new Map<string, number>();
  for (const s of doc.samples) {
    if (s.outcome === "ok" && s.servedProvider) served.set(s.servedProvider, (served.get(s.servedProvider) ?? 0) + 1);
  }
  return {
    key,
    targetId: doc.targetId,
    scenario: doc.scenario,
    runId: doc.runId,
    label: doc.label,
    model: doc.model,
    modelKey: modelKeyOf(doc),
    route: doc.route,
    slo: sloOf(doc.workload),
    startedAt: doc.startedAt,
    finishedAt: doc.finishedAt,
    status: doc.status,
    partialReason: doc.partialReason,
    simulated: doc.simulated,
    summary: summaryOf(doc),
    levels: doc.levels.map((l) => ({
      level: l.level,
      load: l.load,
      probe: l.probe ? { order: l.probe.order, decision: l.probe.decision } : null,
      aggregateOutputTokensPerSecond: headlineAggregate(l).outputTokensPerSecond,
      aggregateWindow: headlineAggregate(l).window,
      perStreamOutputTokensPerSecondP50: l.perStream.outputTokensPerSecond.p50,
      ttftP50Ms: l.ttftMs.p50,
      ttftP95Ms: l.ttftMs.p95,
      ttftP99Ms: l.ttftMs.p99,
      e2eP50Ms: l.e2eMs.p50,
      e2eP95Ms: l.e2eMs.p95,
      e2eP99Ms: l.e2eMs.p99,
      sent: l.requests.sent,
      ok: l.requests.ok,
      rateLimited: l.requests.rateLimited,
      valid: l.valid,
      ttftAnswerP50Ms: l.ttftAnswerMs?.p50 ?? null,
      meetsSlo: l.meetsSlo,
      meteredUsdPerMillionOutputTokens: l.cost.meteredUsdPerMillionOutputTokens,
      declaredUsdPerMillionOutputTokens: l.cost.declaredUsdPerMillionOutputTokens,
      invalidReasons: l.invalidReasons,
      // Read tolerantly: run documents written before goodput was recorded have no such field.
      goodputOutputTokensPerSecond:
        (l as { goodputOutputTokensPerSecond?: number | null }).goodputOutputTokensPerSecond ?? null,
      sloFigures: l.sloFigures,
      cachedPromptTokenShare: l.cachedPromptTokenShare,
      ...indexFields(l),
    })),
    servedProviders: [...served.entries()].sort((a, b) => b[1] - a[1]).map(([p]) => p),
    ...(doc.reference ? { reference: true } : {}),
    ...(doc.canary
      ? {
          canary: {
            promptSet: doc.canary.promptSet,
            completions: doc.canary.completions.filter((c) => c.outcome === "ok").length,
          },
        }
      : {}),
    ...(doc.toolCalls
      ? { toolCalls: { suite: doc.toolCalls.suite, support: doc.toolCalls.support, shares: doc.toolCalls.shares } }
      : {}),
  };
}

/**
 * The document's summary. One whose kind reads its knee in offered rate (`kneeInRate`, an open loop)
 * stored before the summary read it so holds a level number as `kneeConcurrency` and no rates: its knee and peaks are read again from
 * its levels (`summarizeRun`), so no reader of the index takes a level's number for a concurrency.
 */
function summaryOf(doc: RunDocument): Summary {
  const s = doc.summary;
  if (!kneeInRate(doc.levels) || s.kneeRequestsPerSecond !== undefined) return s;
  const fresh = summarizeRun(doc.levels, { stop: s.stop });
  return {
    ...s,
    peak: fresh.peak,
    kneeConcurrency: null,
    kneeRequestsPerSecond: fresh.kneeRequestsPerSecond ?? null,
    saturated: fresh.saturated,
    goodputPeak: fresh.goodputPeak,
  };
}

/** The SLO recorded in a run's workload; null when the document predates it. */
function sloOf(workload: RunDocument["workload"]): SloRecord | null {
  const parsed = SloRecord.safeParse(workload.slo);
  return parsed.success ? parsed.data : null;
}

/** Stores a run document, then indexes it: no reader of the index finds a run it cannot read. */
export async function saveRun(store: Store, index: RunIndex, doc: RunDocument): Promise<RunIndexEntry> {
  const key = await putRun(store, doc);
  const entry = indexEntryFor(key, doc);
  await index.record(entry);
  return entry;
}

/**
 * Indexes every stored run document the index does not know (a document copied into the store by
 * hand, or one whose indexing was interrupted). A malformed document is reported to `warn`, not thrown.
 */
export async function syncIndex(
  store: Store,
  index: RunIndex,
  warn: (message: string) => void = () => {},
): Promise<{ added: number; skipped: number }> {
  // One target's entries at a time: only their keys are kept, not every entry of the index at once.
  const known = new Set<string>();
  for (const id of await index.targetIds()) for (const e of await index.entries(id)) known.add(e.key);
  const fresh: RunIndexEntry[] = [];
  let skipped = 0;
  for (const key of await listRunKeys(store)) {
    if (known.has(key)) continue;
    try {
      fresh.push(indexEntryFor(key, await readRun(store, key)));
    } catch (error) {
      skipped++;
      warn(`skipped ${key}: ${(error as Error).message}`);
    }
  }
  if (fresh.length > 0) await index.record(...fresh);
  return { added: fresh.length, skipped };
}

/** One run in a series' history: the headline figures the history chart and the trend need. */
export const HistoryPoint = z.object({
  key: z.string(),
  runId: z.string(),
  startedAt: z.string(),
  status: z.enum(["complete", "partial", "failed"]),
  valid: z.boolean(),
  singleStreamOutputTokensPerSecond: z.number().nullable(),
  singleStreamTtftP50Ms: z.number().nullable(),
  peakAggregateOutputTokensPerSecond: z.number().nullable(),
  peakConcurrency: z.number().nullable(),
  kneeConcurrency: z.number().nullable(),
  /** Open loop: the highest rate meeting the SLO, requests/s; null for closed-loop runs and when none met it. */
  capacityRequestsPerSecond: z.number().nullable(),
  errorRate: z.number(),
  rateLimitRate: z.number(),
  /** A searched run's brackets, stop and cost (`summary.search`); null for a ladder. */
  search: SearchRecord.nullable().default(null),
});
export type HistoryPoint = z.infer<typeof HistoryPoint>;

/**
 * A series' summary (what every page but the series' own needs of one (target, scenario)), kept
 * beside its entries by `record`: see `summary.ts`, which keeps and reads it.
 */
export const SeriesSummary = z.object({
  targetId: z.string(),
  scenario: z.string(),
  /** The rule it was kept by (`SUMMARY_KEEPS` when it was written). */
  keeps: z.object({
    windowHours: z.number(),
    maxRuns: z.number().int(),
    historyRuns: z.number().int(),
    maxHistoryRuns: z.number().int(),
  }),
  /** Every run of the series. */
  runs: z.number().int().positive(),
  /** The start of its oldest run. */
  firstStartedAt: z.string(),
  /**
   * The kept entries, oldest first: the newest run; the newest runs that may enter a standing (at most
   * `keeps.maxRuns`, started within `keeps.windowHours` of the newest of them); the newest run with a
   * tool-call phase; the newest run with a same-model verdict.
   */
  entries: z.array(RunIndexEntry),
  /** The history points of its newest runs, oldest first: every run from `history[0]` on. */
  history: z.array(HistoryPoint),
});
export type SeriesSummary = z.infer<typeof SeriesSummary>;
