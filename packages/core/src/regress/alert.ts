/**
 * @module One alert under detection (`Tracked`): the alert and what detection needs to grow and
 * resolve it, with the small steps that open, grow and resolve one. They change only the Tracked
 * they are given; the trackers are the detector's business.
 */
import { createHash } from "node:crypto";
import {
  type Alert,
  type AlertKind,
  METRIC_DIRECTION,
  type MetricChange,
  type MetricName,
  type Severity,
} from "../alerts/index.ts";
import type { RunIndexEntry } from "../run-index/index.ts";
import { isDiscrete, isRate, METRICS } from "./series.ts";
import { levelOf } from "./stats.ts";
import { shiftTitle, subjectOf } from "./title.ts";
import type { Baseline, ShiftEvent } from "./tracker.ts";

/**
 * A stable alert id: 16 hex digits of SHA-256 over target, scenario, kind and the run id of the first
 * run after the change (the scenario left out for `chat`, so ids made before scenarios stay).
 * Re-evaluating the same history, or the same history plus later runs, gives the same id, because
 * detection is causal (a run's verdict depends only on the runs before it).
 */
export function alertId(targetId: string, kind: AlertKind, firstRunId: string, scenario = "chat"): string {
  const series = scenario === "chat" ? targetId : `${targetId}\u0000${scenario}`;
  return createHash("sha256").update(`${series}\u0000${kind}\u0000${firstRunId}`).digest("hex").slice(0, 16);
}

/** An alert with what detection needs to grow and resolve it. */
export interface Tracked {
  alert: Alert;
  cause: "shift" | "stopped" | "route" | "model" | "tools";
  openedIndex: number;
  indices: Set<number>;
  catastrophic: boolean;
  /** Per metric: the baseline it left (its band resolves the alert) and the tracker epoch it started. */
  old: Map<MetricName, { baseline: Baseline; epoch: number | null }>;
  /** Consecutive runs back inside every old band, and their values. */
  back: number;
  returned: Map<MetricName, number[]>;
  /** Metrics whose return a confirmed rise already showed. */
  returnedMetrics: Set<MetricName>;
}

/** A new alert of `kind`, its change starting at run `first`, opened at run `run` (index `index`). */
export function newTracked(
  kind: AlertKind,
  cause: Tracked["cause"],
  first: RunIndexEntry,
  run: RunIndexEntry,
  index: number,
): Tracked {
  return {
    alert: {
      id: alertId(run.targetId, kind, first.runId, run.scenario),
      targetId: run.targetId,
      scenario: run.scenario,
      label: run.label,
      kind,
      state: kind === "improvement" ? "resolved" : "open",
      severity: "warning",
      metrics: [],
      changes: [],
      served: null,
      changedAt: first.startedAt,
      openedAt: run.startedAt,
      // Improvements are events, not conditions: resolved when recorded, so nothing waits on them.
      resolvedAt: kind === "improvement" ? run.startedAt : null,
      updatedAt: run.startedAt,
      runIds: [],
      title: "",
    },
    cause,
    openedIndex: index,
    indices: new Set(),
    catastrophic: false,
    old: new Map(),
    back: 0,
    returned: new Map(),
    returnedMetrics: new Set(),
  };
}

/** Adds run indices to the alert; its run ids follow, oldest first. */
export function addRuns(t: Tracked, runs: readonly RunIndexEntry[], indices: readonly number[]): void {
  for (const i of indices) t.indices.add(i);
  t.alert.runIds = [...t.indices].sort((a, b) => a - b).map((i) => (runs[i] as RunIndexEntry).runId);
}

export function resolveAlert(t: Tracked, at: string): void {
  t.alert.state = "resolved";
  t.alert.resolvedAt = at;
  t.alert.updatedAt = at;
}

export function severityOf(t: Tracked): Severity {
  if (t.alert.kind === "improvement") return "info";
  if (t.catastrophic) return "critical";
  const large = t.alert.changes.some((c) => {
    if (isDiscrete(c.metric)) return false; // one level's step is no catastrophe on its own
    if (isRate(c.metric)) return c.after.median - c.before.median >= 0.5;
    return c.relativeChange !== null && Math.abs(c.relativeChange) >= 0.5;
  });
  return large ? "critical" : "warning";
}

/** A value is back when it is no longer worse than the old baseline's band (better counts too). */
export function isBack(metric: MetricName, value: number, old: Baseline): boolean {
  const worseBy = METRIC_DIRECTION[metric] === "higher" ? old.median - value : value - old.median;
  return worseBy <= old.runBand;
}

export function relative(before: number, after: number): number | null {
  return before === 0 ? null : after / before - 1;
}

/** Adds one metric's shift to its alert: the change, its runs, the band that will resolve it. */
export function mergeShift(t: Tracked, e: ShiftEvent, runs: readonly RunIndexEntry[], at: string): void {
  const before = { median: e.baseline.median, spread: e.baseline.spread, runs: e.baseline.runs };
  const after = levelOf(e.values);
  const change: MetricChange = {
    metric: e.metric,
    before,
    after,
    relativeChange: relative(before.median, after.median),
  };
  const changes = [...t.alert.changes.filter((c) => c.metric !== e.metric), change];
  t.alert.changes = changes.sort((a, b) => METRICS.indexOf(a.metric) - METRICS.indexOf(b.metric));
  t.alert.metrics = t.alert.changes.map((c) => c.metric);
  t.old.set(e.metric, { baseline: e.baseline, epoch: e.epoch ?? t.old.get(e.metric)?.epoch ?? null });
  addRuns(t, runs, e.indices);
  t.catastrophic ||= e.catastrophic;
  t.alert.severity = severityOf(t);
  t.alert.title = shiftTitle(subjectOf(t.alert), t.alert.changes);
  t.alert.updatedAt = at;
}

/**
 * One run judged against an open regression's old bands: "out" when a metric it holds is still
 * worse, "back" when every metric it holds that the run measured is back, "unseen" when the run
 * measured none of them.
 */
export function bandVerdict(t: Tracked, values: ReadonlyMap<MetricName, number>): "back" | "out" | "unseen" {
  let seen = false;
  let inside = true;
  for (const [metric, old] of t.old) {
    const v = values.get(metric);
    if (v === undefined) continue;
    seen = true;
    if (!isBack(metric, v, old.baseline)) inside = false;
  }
  if (!seen) return "unseen";
  return inside ? "back" : "out";
}
