/**
 * @module A series' summary: what every page but the series' own needs of one (target, scenario),
 * kept beside its index entries and updated when a run is recorded, so a build that renders other
 * targets' pages reads a few entries per series instead of its whole history.
 *
 * It holds a subset of the series' entries (its newest run, its newest runs that may enter the
 * standing, its newest tool-call run and newest judged canary) and the history points of its recent
 * runs. The standing, the latest run, the tool calls and the same-model verdict computed over that
 * subset equal those computed over every entry, as long as the build's standing window fits within
 * the one the summary kept (`summaryServes` says when; otherwise the build reads the entries).
 */
import { DEFAULT_STANDING } from "../config/index.ts";
import { concurrencyOf } from "../run/index.ts";
import { bySeries, type HistoryPoint, type RunIndexEntry, type SeriesSummary } from "./index.ts";

export { HistoryPoint, SeriesSummary } from "./index.ts";

/** An entry's history point. */
export function historyPoint(e: RunIndexEntry): HistoryPoint {
  return {
    key: e.key,
    runId: e.runId,
    startedAt: e.startedAt,
    status: e.status,
    valid: e.summary.valid,
    singleStreamOutputTokensPerSecond: e.summary.singleStream?.outputTokensPerSecond ?? null,
    singleStreamTtftP50Ms: e.summary.singleStream?.ttftP50Ms ?? null,
    peakAggregateOutputTokensPerSecond: e.summary.peak?.aggregateOutputTokensPerSecond ?? null,
    peakConcurrency: e.summary.peak ? concurrencyOf(e.summary.peak.load) : null,
    kneeConcurrency: e.summary.kneeConcurrency,
    capacityRequestsPerSecond: e.summary.capacityRequestsPerSecond ?? null,
    errorRate: e.summary.errorRate,
    rateLimitRate: e.summary.rateLimitRate,
    search: e.summary.search ?? null,
  };
}

/** A run enters a standing when it is complete and at least one of its levels is valid. */
export function entersStanding(entry: RunIndexEntry): boolean {
  return entry.status === "complete" && entry.levels.some((l) => l.valid);
}

/** Newest first: by start, then by key (the order the standing picks its runs in). */
export function newestFirst(a: { startedAt: string; key: string }, b: { startedAt: string; key: string }): number {
  return b.startedAt.localeCompare(a.startedAt) || b.key.localeCompare(a.key);
}

/**
 * What a summary keeps: the runs that may enter a standing of at most `maxRuns` runs over
 * `windowHours` hours (the default standing's), and the history of at least `historyRuns` runs
 * (the site's trend needs 20) back to the oldest of those, at most `maxHistoryRuns`.
 */
export const SUMMARY_KEEPS = { ...DEFAULT_STANDING, historyRuns: 24, maxHistoryRuns: 200 } as const;

/** Oldest first: by start, then by key (the order history is drawn in). */
const oldestFirst = (a: { startedAt: string; key: string }, b: { startedAt: string; key: string }) => newestFirst(b, a);

/** The newest of entries that pass keep, or undefined. */
function newestOf(entries: readonly RunIndexEntry[], keep: (e: RunIndexEntry) => boolean): RunIndexEntry | undefined {
  let best: RunIndexEntry | undefined;
  for (const e of entries) if (keep(e) && (best === undefined || newestFirst(e, best) < 0)) best = e;
  return best;
}

/**
 * The entries a summary keeps of `entries` (one series'), oldest first, and of them the runs that may
 * enter a standing (its history reaches back to the oldest of those).
 */
function keptEntries(entries: readonly RunIndexEntry[]): { kept: RunIndexEntry[]; standing: Set<string> } {
  const kept = new Map<string, RunIndexEntry>();
  const add = (e: RunIndexEntry | undefined) => e && kept.set(e.key, e);
  const eligible = entries.filter(entersStanding).sort(newestFirst);
  const newest = eligible[0];
  const standing = new Set<string>();
  if (newest) {
    const fromMs = Date.parse(newest.startedAt) - SUMMARY_KEEPS.windowHours * 3_600_000;
    for (const e of eligible.slice(0, SUMMARY_KEEPS.maxRuns))
      if (Date.parse(e.startedAt) >= fromMs) {
        add(e);
        standing.add(e.key);
      }
  }
  add(newestOf(entries, () => true));
  add(newestOf(entries, (e) => e.toolCalls !== undefined));
  add(newestOf(entries, (e) => e.sameModel !== undefined));
  return { kept: [...kept.values()].sort(oldestFirst), standing };
}

/** The history a summary keeps of a series' points (oldest first): see `SUMMARY_KEEPS`. */
function keptHistory(points: readonly HistoryPoint[], standing: ReadonlySet<string>): HistoryPoint[] {
  const oldest = points.findIndex((p) => standing.has(p.key));
  const tail = Math.max(0, points.length - SUMMARY_KEEPS.historyRuns);
  const from = Math.max(oldest >= 0 ? Math.min(oldest, tail) : tail, points.length - SUMMARY_KEEPS.maxHistoryRuns);
  return points.slice(from);
}

/** The summary of one series from every one of its entries (any order; at least one). */
export function summarize(entries: readonly RunIndexEntry[]): SeriesSummary {
  const sorted = [...entries].sort(oldestFirst);
  const first = sorted[0];
  if (!first) throw new Error("summarize: a series has at least one entry");
  const { kept, standing } = keptEntries(sorted);
  return {
    targetId: first.targetId,
    scenario: first.scenario,
    keeps: { ...SUMMARY_KEEPS },
    runs: sorted.length,
    firstStartedAt: first.startedAt,
    entries: kept,
    history: keptHistory(sorted.map(historyPoint), standing),
  };
}

/**
 * The summary after `fresh` entries of its series are recorded (new runs, or runs recorded again),
 * without the series' other entries; null where that cannot be told from the summary alone (the
 * caller derives it from every entry then): a run recorded again that the summary kept and that no
 * longer qualifies as it did, or one older than its history whose novelty it cannot tell.
 */
export function mergeSummary(summary: SeriesSummary, fresh: readonly RunIndexEntry[]): SeriesSummary | null {
  if (!sameKeeps(summary)) return null;
  const kept = new Map(summary.entries.map((e) => [e.key, e]));
  const points = new Map(summary.history.map((p) => [p.key, p]));
  const oldestPoint = summary.history[0];
  let runs = summary.runs;
  let firstStartedAt = summary.firstStartedAt;
  for (const e of fresh) {
    const before = kept.get(e.key);
    // A kept run that lost what kept it (its start, eligibility, tool calls, verdict): the next one is not here.
    if (
      before &&
      (before.startedAt !== e.startedAt ||
        entersStanding(before) !== entersStanding(e) ||
        (before.toolCalls !== undefined && e.toolCalls === undefined) ||
        (before.sameModel !== undefined && e.sameModel === undefined))
    )
      return null;
    if (!points.has(e.key)) {
      // Older than the history kept: a new run or one recorded again, which the summary cannot tell.
      if (!oldestPoint || oldestFirst(e, oldestPoint) < 0) return null;
      runs++;
    }
    kept.set(e.key, e);
    points.set(e.key, historyPoint(e));
    if (e.startedAt < firstStartedAt) firstStartedAt = e.startedAt;
  }
  const { kept: entries, standing } = keptEntries([...kept.values()]);
  return {
    ...summary,
    runs,
    firstStartedAt,
    entries,
    history: keptHistory([...points.values()].sort(oldestFirst), standing),
  };
}

/** Whether a summary was kept by today's rule (else it is derived again). */
export function sameKeeps(summary: SeriesSummary): boolean {
  const k = summary.keeps;
  return (
    k.windowHours === SUMMARY_KEEPS.windowHours &&
    k.maxRuns === SUMMARY_KEEPS.maxRuns &&
    k.historyRuns === SUMMARY_KEEPS.historyRuns &&
    k.maxHistoryRuns === SUMMARY_KEEPS.maxHistoryRuns
  );
}

/**
 * Whether a build at `now` whose standing is taken over `config` may read this summary instead of
 * the series' entries: its window fits within the kept one and no kept run started after `now`.
 * (Whether its history reaches back far enough depends on the standing, which the caller checks.)
 */
export function summaryServes(summary: SeriesSummary, now: string, config: { windowHours: number; maxRuns: number }) {
  return (
    config.windowHours <= summary.keeps.windowHours &&
    config.maxRuns <= summary.keeps.maxRuns &&
    summary.entries.every((e) => e.startedAt <= now)
  );
}

/** Summaries of entries of any series, one per series, in the order each series is first met. */
export function summarizeAll(entries: readonly RunIndexEntry[]): SeriesSummary[] {
  return [...bySeries(entries).values()].map(summarize);
}
