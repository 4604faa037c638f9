/**
 * @module Regression detection (docs/methodology.md, Regressions), pure: run index entries in, alerts out. Per (target, scenario)
 * and metric a robust baseline (median and MAD of a trailing window) judges each valid run; a shift
 * alerts once confirmed by later runs (at once when catastrophic), shifts of one change are grouped
 * into one alert, and a regression resolves when its series return to the old band.
 */
import type { Alert } from "../alerts/index.ts";
import { bySeries, type RunIndexEntry } from "../run-index/index.ts";
import { isJudged } from "./series.ts";
import { TargetDetector } from "./target.ts";
import { DEFAULT_DETECTOR, type DetectorOptions } from "./tracker.ts";

export { alertId } from "./alert.ts";
export { DEFAULT_DETECTOR, type DetectorOptions } from "./tracker.ts";

function byStart(a: RunIndexEntry, b: RunIndexEntry): number {
  return a.startedAt.localeCompare(b.startedAt) || a.runId.localeCompare(b.runId) || a.key.localeCompare(b.key);
}

/** Detects every (target, scenario)'s alerts in the given entries (any order, any mix of targets and scenarios). */
export function detectAlerts(entries: RunIndexEntry[], options: DetectorOptions = DEFAULT_DETECTOR): Alert[] {
  const series = bySeries(entries);
  const alerts: Alert[] = [];
  for (const key of [...series.keys()].sort()) {
    alerts.push(...new TargetDetector((series.get(key) ?? []).sort(byStart), options).detect());
  }
  return alerts.sort((a, b) => a.openedAt.localeCompare(b.openedAt) || a.id.localeCompare(b.id));
}

/** One (target, scenario)'s history as regression detection sees it. */
export interface SeriesHistory {
  /** `seriesKey`: the target id, or `<targetId>/<scenario>`. */
  key: string;
  /** Runs a baseline can hold: complete, with at least one valid level. */
  judgedRuns: number;
  /** Judged runs it lacks before its first baseline (`minBaselineRuns`); 0 when it has enough. */
  missing: number;
}

/** Each (target, scenario) of the entries, how many judged runs it has, and how many it lacks for a baseline. */
export function seriesHistory(entries: RunIndexEntry[], options: DetectorOptions = DEFAULT_DETECTOR): SeriesHistory[] {
  return [...bySeries(entries)].map(([key, runs]) => {
    const judgedRuns = runs.filter(isJudged).length;
    return { key, judgedRuns, missing: Math.max(0, options.minBaselineRuns - judgedRuns) };
  });
}
