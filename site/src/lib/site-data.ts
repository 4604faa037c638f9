/**
 * @module What the pages are built from, read from the store through its ports: the run index for
 * history and headline figures, full run documents only for the latest readable run of each
 * (target, scenario). The pages show the `chat` scenario (`targets`); every scenario is in `series`.
 */
import { ALERTS_KEY, type Alert, AlertsFile } from "@kneeboard/core/alerts";
import { DEFAULT_STANDING, type StandingConfig } from "@kneeboard/core/config";
import type { RunDocument } from "@kneeboard/core/run";
import { bySeries, type RunIndex, type RunIndexEntry } from "@kneeboard/core/run-index";
import { type Slo, type Standing, standingOf } from "@kneeboard/core/standing";
import { readRun, type Store } from "@kneeboard/core/store";

/** One run in a target's history: the headline figures the history chart and the trend need. */
export interface HistoryPoint {
  key: string;
  runId: string;
  startedAt: string;
  status: "complete" | "partial";
  valid: boolean;
  singleStreamOutputTokensPerSecond: number | null;
  singleStreamTtftP50Ms: number | null;
  peakAggregateOutputTokensPerSecond: number | null;
  peakConcurrency: number | null;
  kneeConcurrency: number | null;
  errorRate: number;
  rateLimitRate: number;
}

/** A run document without its samples: what the target page shows of the latest run. */
export type RunDetails = Omit<RunDocument, "samples"> & { key: string };

/** One (target, scenario): its runs, latest figures and standing. */
export interface TargetView {
  id: string;
  /** The scenario its runs swept (`chat` for every view in `SiteData.targets`). */
  scenario: string;
  label: string;
  model: string;
  simulated: boolean;
  /** The newest run, whatever its state: the leaderboard row says when it is partial or invalid. */
  latest: RunIndexEntry;
  /** The newest run whose document could be read; null when none could. */
  details: RunDetails | null;
  /** Every run, oldest first. */
  history: HistoryPoint[];
  /** The figures the site ranks by: medians with intervals over the standing window. */
  standing: Standing;
}

export interface SiteData {
  generatedAt: string;
  /** The `chat` scenario of every target that has runs in it, by target id: what the pages show. */
  targets: TargetView[];
  /** Every (target, scenario), by target id then scenario. */
  series: TargetView[];
  alerts: Alert[];
  /** The index entries of `targets`, oldest first per target (for `runs.csv`; pages use the views above). */
  entries: RunIndexEntry[];
  /** Problems met while reading (a malformed run document, a bad alerts file), each naming the key. */
  warnings: string[];
}

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
    peakConcurrency: e.summary.peak?.concurrency ?? null,
    kneeConcurrency: e.summary.kneeConcurrency,
    errorRate: e.summary.errorRate,
    rateLimitRate: e.summary.rateLimitRate,
  };
}

async function readAlerts(store: Store, warn: (m: string) => void): Promise<Alert[]> {
  const body = await store.get(ALERTS_KEY);
  if (body === null) return [];
  try {
    return AlertsFile.parse(JSON.parse(body)).alerts;
  } catch (error) {
    warn(`skipped ${ALERTS_KEY}: ${(error as Error).message.split("\n")[0]}`);
    return [];
  }
}

/** Reads everything the site shows. Malformed documents are skipped with a warning, never thrown. */
export async function loadSiteData(options: {
  store: Store;
  index: RunIndex;
  now?: string;
  /** Which runs the standing is taken over (default 72 hours, at most 24 runs). */
  standing?: StandingConfig;
  slo?: Slo;
  warn?: (message: string) => void;
}): Promise<SiteData> {
  const generatedAt = options.now ?? new Date().toISOString();
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    options.warn?.(m);
  };
  // Standing, capacity and history are per (target, scenario): one view per series.
  const groups = [...bySeries(await options.index.entries()).values()].sort(
    ([a], [b]) =>
      (a as RunIndexEntry).targetId.localeCompare((b as RunIndexEntry).targetId) ||
      (a as RunIndexEntry).scenario.localeCompare((b as RunIndexEntry).scenario),
  );

  const series: TargetView[] = [];
  const all: RunIndexEntry[] = [];
  for (const entries of groups) {
    const { targetId: id, scenario } = entries[0] as RunIndexEntry;
    entries.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.key.localeCompare(b.key));
    if (scenario === "chat") all.push(...entries);
    const latest = entries[entries.length - 1] as RunIndexEntry;
    let details: RunDetails | null = null;
    for (let i = entries.length - 1; i >= 0 && details === null; i--) {
      const key = (entries[i] as RunIndexEntry).key;
      try {
        const { samples: _samples, ...rest } = await readRun(options.store, key);
        details = { ...rest, key };
      } catch (error) {
        warn(`skipped ${key}: ${(error as Error).message}`);
      }
    }
    series.push({
      id,
      scenario,
      label: latest.label,
      model: latest.model,
      simulated: latest.simulated,
      latest,
      details,
      history: entries.map(historyPoint),
      standing: standingOf(id, entries, {
        scenario,
        now: generatedAt,
        config: options.standing ?? DEFAULT_STANDING,
        // The SLO the runs were judged by (the config's `workload.slo`), unless the build names one.
        slo: options.slo ?? latest.slo ?? undefined,
      }),
    });
  }
  return {
    generatedAt,
    targets: series.filter((v) => v.scenario === "chat"),
    series,
    alerts: await readAlerts(options.store, warn),
    entries: all,
    warnings,
  };
}
