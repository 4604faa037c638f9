/**
 * @module What the pages are built from, read from the store through its ports: the run index for
 * history and headline figures, full run documents only for the latest readable run of each
 * (target, scenario). Every scenario is in `series`; `scenarios` orders them (`chat` first when
 * present, then in the order their first run started): the site's front pages show the first.
 */
import { ALERTS_KEY, type Alert, AlertsFile } from "@kneeboard/core/alerts";
import { DEFAULT_STANDING, type StandingConfig } from "@kneeboard/core/config";
import type { RunDocument } from "@kneeboard/core/run";
import { bySeries, type RunIndex, type RunIndexEntry, type SeriesSummary, seriesKey } from "@kneeboard/core/run-index";
import { historyPoint, summaryServes } from "@kneeboard/core/run-index/summary";
import { type Slo, standingOf } from "@kneeboard/core/standing";
import { readRun, type Store } from "@kneeboard/core/store";
import type { HistoryPoint, RunDetails, TargetView } from "./site-index.ts";
import { toolCallsByTarget } from "./tool-calls.ts";

export type { HistoryPoint, RunDetails, TargetView };

/** The runs a trend shows: every page but a series' own keeps at least these of its history. */
export const TREND_RUNS = 20;

export interface SiteData {
  generatedAt: string;
  /** The `chat` scenario of every target that has runs in it, by target id. */
  targets: TargetView[];
  /** Every (target, scenario), by target id then scenario. */
  series: TargetView[];
  /** Every scenario with runs: `chat` first when present, then in the order their first run started. */
  scenarios: string[];
  alerts: Alert[];
  /** The index entries of `targets` (chat), oldest first per target; pages use the views above. */
  entries: RunIndexEntry[];
  /** The index entries of every (target, scenario), oldest first per series: `runs.csv` and the run documents under `/data/`. */
  allEntries: RunIndexEntry[];
  /** Problems met while reading (a malformed run document, a bad alerts file), each naming the key. */
  warnings: string[];
}

/** Scenarios in the site's order: `chat` first when present, then by their first run's start (then by name). */
export function scenarioOrder(entries: Iterable<{ scenario: string; startedAt: string }>): string[] {
  const first = new Map<string, string>();
  for (const e of entries) {
    const seen = first.get(e.scenario);
    if (seen === undefined || e.startedAt < seen) first.set(e.scenario, e.startedAt);
  }
  return [...first.keys()].sort(
    (a, b) =>
      Number(b === "chat") - Number(a === "chat") ||
      (first.get(a) as string).localeCompare(first.get(b) as string) ||
      a.localeCompare(b),
  );
}

/** A view's series key (`seriesKey`): the target id for `chat`, `<id>/<scenario>` else; what chart payloads are keyed by. */
export function viewKey(v: Pick<TargetView, "id" | "scenario">): string {
  return seriesKey({ targetId: v.id, scenario: v.scenario });
}

/** The views of one scenario, by target id. */
export function viewsOf(series: readonly TargetView[], scenario: string): TargetView[] {
  return series.filter((v) => v.scenario === scenario);
}

/**
 * How many targets the site shows and how many of them are simulated, counted by id over every
 * scenario: a target that ran only a later scenario is on the site too.
 */
export function targetCounts(series: readonly TargetView[]): { targets: number; simulated: number } {
  const ids = (views: readonly TargetView[]) => new Set(views.map((v) => v.id)).size;
  return { targets: ids(series), simulated: ids(series.filter((v) => v.simulated)) };
}

/** The run's prompt tokens: the median over its ok samples that report them, else `workload.promptTokens`. */
export function promptTokensOf(doc: Pick<RunDocument, "workload" | "samples">): number | null {
  const counts = doc.samples
    .filter((s) => s.outcome === "ok" && s.promptTokens !== null)
    .map((s) => s.promptTokens as number)
    .sort((a, b) => a - b);
  if (counts.length > 0) {
    const mid = counts.length >> 1;
    return counts.length % 2 ? (counts[mid] as number) : ((counts[mid - 1] as number) + (counts[mid] as number)) / 2;
  }
  const declared = doc.workload.promptTokens;
  return typeof declared === "number" && Number.isFinite(declared) ? declared : null;
}

export { historyPoint };

export async function readAlerts(store: Store, warn: (m: string) => void): Promise<Alert[]> {
  const body = await store.get(ALERTS_KEY);
  if (body === null) return [];
  try {
    return AlertsFile.parse(JSON.parse(body)).alerts;
  } catch (error) {
    warn(`skipped ${ALERTS_KEY}: ${(error as Error).message.split("\n")[0]}`);
    return [];
  }
}

export interface SiteDataOptions {
  store: Store;
  index: RunIndex;
  now?: string;
  /** Which runs the standing is taken over (default 72 hours, at most 24 runs). */
  standing?: StandingConfig;
  slo?: Slo;
  warn?: (message: string) => void;
}

/**
 * One target as the site shows it: a view per scenario (by scenario), and its index entries, oldest
 * first per series: every one, or (`complete` false) only those its series' summaries keep.
 */
export interface TargetData {
  views: TargetView[];
  entries: RunIndexEntry[];
  /** Whether `entries` holds every run of the target (else its views were read from its summaries). */
  complete: boolean;
  /** Its runs, every scenario's. */
  runs: number;
  /** The start of each scenario's first run, by scenario. */
  firstStartedAt: Record<string, string>;
}

/**
 * Reads the site's targets one at a time, in id order, each from its own index entries: what the
 * build walks, so its memory holds one target's history at a time, not every target's. With
 * `needsEntries`, a target it declines is read from its series' summaries instead (its views the
 * same, its history the recent runs'), unless they cannot serve this build's standing.
 * Malformed documents are skipped with a warning, never thrown.
 */
export async function* targetsData(
  options: SiteDataOptions & { now: string; needsEntries?: (summaries: SeriesSummary[]) => boolean },
): AsyncGenerator<TargetData> {
  const ids = (await options.index.targetIds()).sort((a, b) => a.localeCompare(b));
  // The next targets' summaries are asked for while this one is read (one request each on AWS).
  const ahead = new Map<string, Promise<SeriesSummary[]>>();
  const summariesOf = (at: number) => {
    for (const id of ids.slice(at, at + SUMMARIES_AHEAD))
      if (!ahead.has(id)) {
        const asked = options.index.summaries(id);
        // Awaited in turn below; a failure meanwhile is not an unhandled rejection.
        asked.catch(() => {});
        ahead.set(id, asked);
      }
    const asked = ahead.get(ids[at] as string) as Promise<SeriesSummary[]>;
    ahead.delete(ids[at] as string);
    return asked;
  };
  for (const [at, targetId] of ids.entries()) {
    if (options.needsEntries) {
      const summaries = await summariesOf(at);
      const data = options.needsEntries(summaries) ? null : await fromSummaries(options, summaries);
      if (data) {
        if (data.views.length > 0) yield data;
        continue;
      }
    }
    const entries = await options.index.entries(targetId);
    const firstStartedAt: Record<string, string> = {};
    for (const e of entries)
      if ((firstStartedAt[e.scenario] ?? e.startedAt) >= e.startedAt) firstStartedAt[e.scenario] = e.startedAt;
    const data = { ...(await targetData(options, entries)), complete: true, runs: entries.length, firstStartedAt };
    if (data.views.length > 0) yield data;
  }
}

/** Targets whose summaries are read ahead of the one being read. */
const SUMMARIES_AHEAD = 8;

/**
 * One target's views from its series' summaries: their kept entries give the latest run, the
 * standing, the tool calls and the verdict as every entry would, and their history the recent runs
 * every page but the target's own shows (`recentView`). Null where a summary cannot serve this build
 * (its standing window is wider than the kept one, a kept run started after the build's time, or
 * its history does not reach back to the standing's oldest run): the target is read whole then.
 */
async function fromSummaries(
  options: SiteDataOptions & { now: string },
  summaries: SeriesSummary[],
): Promise<TargetData | null> {
  const config = options.standing ?? DEFAULT_STANDING;
  if (summaries.length === 0 || !summaries.every((s) => summaryServes(s, options.now, config))) return null;
  const histories = new Map(summaries.map((s) => [s.scenario, s.history]));
  const data = await targetData(
    options,
    summaries.flatMap((s) => s.entries),
    histories,
  );
  for (const view of data.views) {
    const summary = summaries.find((s) => s.scenario === view.scenario) as SeriesSummary;
    const reaches =
      summary.history.length === summary.runs ||
      (summary.history.length >= TREND_RUNS &&
        view.standing.runIds.every((id) => summary.history.some((p) => p.runId === id)));
    if (!reaches) return null;
  }
  return {
    ...data,
    complete: false,
    runs: summaries.reduce((n, s) => n + s.runs, 0),
    firstStartedAt: Object.fromEntries(summaries.map((s) => [s.scenario, s.firstStartedAt])),
  };
}

/** One target's views, from its index entries (every scenario); with `histories`, each series' history is that scenario's. */
async function targetData(
  options: SiteDataOptions & { now: string },
  targetEntries: RunIndexEntry[],
  histories?: ReadonlyMap<string, HistoryPoint[]>,
): Promise<{ views: TargetView[]; entries: RunIndexEntry[] }> {
  const warn = options.warn ?? (() => {});
  // Standing, capacity and history are per (target, scenario): one view per series.
  const groups = [...bySeries(targetEntries).values()].sort(([a], [b]) =>
    (a as RunIndexEntry).scenario.localeCompare((b as RunIndexEntry).scenario),
  );
  // The same-model verdict is the route's, whatever scenario its canary ran in: the newest judged one.
  let sameModel: { startedAt: string; verdict: NonNullable<RunIndexEntry["sameModel"]> } | null = null;
  for (const e of targetEntries)
    if (e.sameModel && (sameModel?.startedAt ?? "") < e.startedAt)
      sameModel = { startedAt: e.startedAt, verdict: e.sameModel };
  // Tool calls, likewise, are the route's: its newest tool-call run in any scenario, with the verdict on it.
  const toolCalls = toolCallsByTarget(targetEntries);
  const views: TargetView[] = [];
  const entries: RunIndexEntry[] = [];
  for (const series of groups) {
    const { targetId: id, scenario } = series[0] as RunIndexEntry;
    series.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.key.localeCompare(b.key));
    entries.push(...series);
    const latest = series[series.length - 1] as RunIndexEntry;
    let details: RunDetails | null = null;
    let promptTokens: number | null = null;
    for (let i = series.length - 1; i >= 0 && details === null; i--) {
      const key = (series[i] as RunIndexEntry).key;
      try {
        const doc = await readRun(options.store, key);
        promptTokens = promptTokensOf(doc);
        const { samples: _samples, ...rest } = doc;
        details = { ...rest, key };
      } catch (error) {
        warn(`skipped ${key}: ${(error as Error).message}`);
      }
    }
    views.push({
      id,
      scenario,
      label: latest.label,
      model: latest.model,
      simulated: latest.simulated,
      latest,
      details,
      history: histories?.get(scenario) ?? series.map(historyPoint),
      standing: standingOf(id, series, {
        scenario,
        now: options.now,
        config: options.standing ?? DEFAULT_STANDING,
        // The SLO the runs were judged by (the config's `workload.slo`), unless the build names one.
        slo: options.slo ?? latest.slo ?? undefined,
      }),
      promptTokens,
      sameModel: sameModel?.verdict ?? null,
      toolCalls: toolCalls.get(id) ?? null,
    });
  }
  return { views, entries };
}

/** Reads everything the site shows at once (tests and small sites; the build walks `targetsData`). */
export async function loadSiteData(options: SiteDataOptions): Promise<SiteData> {
  const generatedAt = options.now ?? new Date().toISOString();
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    options.warn?.(m);
  };
  const series: TargetView[] = [];
  const all: RunIndexEntry[] = [];
  for await (const t of targetsData({ ...options, now: generatedAt, warn })) {
    series.push(...t.views);
    all.push(...t.entries);
  }
  return {
    generatedAt,
    targets: series.filter((v) => v.scenario === "chat"),
    series,
    scenarios: scenarioOrder(all),
    alerts: await readAlerts(options.store, warn),
    entries: all.filter((e) => e.scenario === "chat"),
    allEntries: all,
    warnings,
  };
}
