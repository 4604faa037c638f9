/**
 * @module Regression detection (SPEC section 7), pure: run index entries in, alerts out. Per target
 * and metric a robust baseline (median and MAD of a trailing window) judges each valid run; a shift
 * alerts once confirmed by later runs (at once when catastrophic), shifts of one change are grouped
 * into one alert, and a regression resolves when its series return to the old band.
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
import { RouteTracker } from "./route.ts";
import { isJudged, isRate, isStopped, METRICS, metricValue } from "./series.ts";
import { levelOf, mean } from "./stats.ts";
import { routeTitle, shiftTitle, stoppedTitle } from "./title.ts";
import { type Baseline, DEFAULT_DETECTOR, type DetectorOptions, MetricTracker, type ShiftEvent } from "./tracker.ts";

export { DEFAULT_DETECTOR, type DetectorOptions } from "./tracker.ts";

/**
 * A stable alert id: 16 hex digits of SHA-256 over target, kind and the run id of the first run
 * after the change. Re-evaluating the same history, or the same history plus later runs, gives the
 * same id, because detection is causal (a run's verdict depends only on the runs before it).
 */
export function alertId(targetId: string, kind: AlertKind, firstRunId: string): string {
  return createHash("sha256").update(`${targetId}\u0000${kind}\u0000${firstRunId}`).digest("hex").slice(0, 16);
}

/** An alert with what detection needs to grow and resolve it. */
interface Tracked {
  alert: Alert;
  cause: "shift" | "stopped" | "route";
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

function byStart(a: RunIndexEntry, b: RunIndexEntry): number {
  return a.startedAt.localeCompare(b.startedAt) || a.runId.localeCompare(b.runId) || a.key.localeCompare(b.key);
}

function severityOf(t: Tracked): Severity {
  if (t.alert.kind === "improvement") return "info";
  if (t.catastrophic) return "critical";
  const large = t.alert.changes.some((c) => {
    if (c.metric === "kneeConcurrency") return false; // one level's step is no catastrophe on its own
    if (isRate(c.metric)) return c.after.median - c.before.median >= 0.5;
    return c.relativeChange !== null && Math.abs(c.relativeChange) >= 0.5;
  });
  return large ? "critical" : "warning";
}

/** A value is back when it is no longer worse than the old baseline's band (better counts too). */
function isBack(metric: MetricName, value: number, old: Baseline): boolean {
  const worseBy = METRIC_DIRECTION[metric] === "higher" ? old.median - value : value - old.median;
  return worseBy <= old.runBand;
}

function relative(before: number, after: number): number | null {
  return before === 0 ? null : after / before - 1;
}

/** Detects every target's alerts in the given entries (any order, any mix of targets). */
export function detectAlerts(entries: RunIndexEntry[], options: DetectorOptions = DEFAULT_DETECTOR): Alert[] {
  const byTarget = new Map<string, RunIndexEntry[]>();
  for (const e of entries) byTarget.set(e.targetId, [...(byTarget.get(e.targetId) ?? []), e]);
  const alerts: Alert[] = [];
  for (const targetId of [...byTarget.keys()].sort()) {
    alerts.push(...detectTarget((byTarget.get(targetId) ?? []).sort(byStart), options));
  }
  return alerts.sort((a, b) => a.openedAt.localeCompare(b.openedAt) || a.id.localeCompare(b.id));
}

/** One target's alerts, its runs sorted oldest first. */
function detectTarget(runs: RunIndexEntry[], options: DetectorOptions): Alert[] {
  const trackers = new Map(METRICS.map((m) => [m, new MetricTracker(m, options)] as const));
  const route = new RouteTracker();
  const tracked: Tracked[] = [];
  let openRoute: Tracked | null = null;
  let stopped: Tracked | null = null;
  let answered = false;

  const open = (kind: AlertKind, cause: Tracked["cause"], firstIndex: number, index: number): Tracked => {
    const first = runs[firstIndex] as RunIndexEntry;
    const run = runs[index] as RunIndexEntry;
    const t: Tracked = {
      alert: {
        id: alertId(run.targetId, kind, first.runId),
        targetId: run.targetId,
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
    tracked.push(t);
    return t;
  };

  const setRuns = (t: Tracked, indices: readonly number[]) => {
    for (const i of indices) t.indices.add(i);
    t.alert.runIds = [...t.indices].sort((a, b) => a - b).map((i) => (runs[i] as RunIndexEntry).runId);
  };

  const resolve = (t: Tracked, at: string) => {
    t.alert.state = "resolved";
    t.alert.resolvedAt = at;
    t.alert.updatedAt = at;
  };

  /** Adds one metric's shift to its alert: the change, its runs, the band that will resolve it. */
  const merge = (t: Tracked, e: ShiftEvent, at: string) => {
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
    setRuns(t, e.indices);
    t.catastrophic ||= e.catastrophic;
    t.alert.severity = severityOf(t);
    t.alert.title = shiftTitle(t.alert.label, t.alert.changes);
    t.alert.updatedAt = at;
    if (!e.confirmed) e.pending.alertId = t.alert.id;
  };

  /** The alert a shift belongs to: the one its catastrophic run opened, or one of the same kind it overlaps. */
  const alertFor = (e: ShiftEvent, kind: AlertKind, index: number): Tracked => {
    const own = e.pending.alertId && tracked.find((t) => t.alert.id === e.pending.alertId);
    if (own) return own;
    const first = e.indices[0] as number;
    for (let j = tracked.length - 1; j >= 0; j--) {
      const t = tracked[j] as Tracked;
      if (t.cause !== "shift" || t.alert.kind !== kind) continue;
      if (kind === "regression" && t.alert.state !== "open") continue;
      if (first <= t.openedIndex) return t;
    }
    return open(kind, "shift", first, index);
  };

  /**
   * A confirmed rise of a metric that an open regression holds, back to its old band, is that
   * regression's return, not an improvement: the metric gets its old baseline back, and the
   * regression resolves once all its metrics are back.
   */
  const returns = (e: ShiftEvent, index: number): boolean => {
    const t = [...tracked]
      .reverse()
      .find(
        (a) => a.cause === "shift" && a.alert.kind === "regression" && a.alert.state === "open" && a.old.has(e.metric),
      );
    const old = t?.old.get(e.metric);
    if (!t || !old || !isBack(e.metric, mean(e.values), old.baseline)) return false;
    trackers.get(e.metric)?.restore(old.baseline.window, e.values);
    t.returnedMetrics.add(e.metric);
    if ([...t.old.keys()].every((m) => t.returnedMetrics.has(m))) resolve(t, (runs[index] as RunIndexEntry).startedAt);
    return true;
  };

  runs.forEach((run, i) => {
    const at = run.startedAt;

    const routeResult = route.observe(i, run.servedProviders);
    if (routeResult === "resolved" && openRoute) {
      resolve(openRoute, at);
      openRoute = null;
    } else if (routeResult && routeResult !== "resolved") {
      const t: Tracked =
        routeResult.extendsOpen && openRoute
          ? openRoute
          : open("route_change", "route", routeResult.indices[0] as number, i);
      t.alert.served = { before: routeResult.before, after: routeResult.after };
      t.alert.title = routeTitle(t.alert.label, routeResult.before, routeResult.after);
      t.alert.updatedAt = at;
      setRuns(t, routeResult.indices);
      openRoute = t;
    }

    if (isStopped(run)) {
      if (stopped) stopped.back = 0;
      else if (answered) {
        // Catastrophic: alerts on its first run, no confirmation, no baseline needed.
        const t = open("regression", "stopped", i, i);
        const before = trackers.get("errorRate")?.level() ?? { median: 0, spread: 0, runs: 0 };
        const after = { median: 1, spread: 0, runs: 1 };
        t.alert.changes = [
          { metric: "errorRate", before, after, relativeChange: relative(before.median, after.median) },
        ];
        t.alert.metrics = ["errorRate"];
        t.alert.severity = "critical";
        t.catastrophic = true;
        t.alert.title = stoppedTitle(
          run.label,
          run.levels.reduce((sum, l) => sum + l.sent, 0),
        );
        setRuns(t, [i]);
        stopped = t;
      }
      return;
    }
    if (stopped && ++stopped.back >= options.resolveRuns) {
      resolve(stopped, at);
      stopped = null;
    }
    if (!isJudged(run)) return;
    answered = true;

    const values = new Map<MetricName, number>();
    for (const m of METRICS) {
      const v = metricValue(run, m);
      if (v !== null && Number.isFinite(v)) values.set(m, v);
    }

    // Resolution first: runs back in the old band give the old baseline back instead of raising an improvement.
    const restored = new Set<MetricName>();
    for (const t of tracked) {
      if (t.cause !== "shift" || t.alert.kind !== "regression" || t.alert.state !== "open") continue;
      let seen = false;
      let inside = true;
      for (const [metric, old] of t.old) {
        const v = values.get(metric);
        if (v === undefined) continue;
        seen = true;
        if (!isBack(metric, v, old.baseline)) inside = false;
      }
      if (!seen) continue;
      if (!inside) {
        t.back = 0;
        t.returned.clear();
        continue;
      }
      t.back++;
      for (const metric of t.old.keys()) {
        const v = values.get(metric);
        if (v !== undefined) t.returned.set(metric, [...(t.returned.get(metric) ?? []), v]);
      }
      if (t.back < options.resolveRuns) continue;
      resolve(t, at);
      for (const [metric, old] of t.old) {
        const tracker = trackers.get(metric);
        if (!tracker || old.epoch === null || tracker.epoch !== old.epoch) continue;
        tracker.restore(old.baseline.window, t.returned.get(metric) ?? []);
        restored.add(metric);
      }
    }

    for (const [metric, v] of values) {
      if (restored.has(metric)) continue;
      const e = trackers.get(metric)?.observe(i, v);
      if (!e) continue;
      const kind: AlertKind = e.direction === "bad" ? "regression" : "improvement";
      if (kind === "improvement" && e.confirmed && returns(e, i)) continue;
      merge(alertFor(e, kind, i), e, at);
    }
  });

  return tracked.map((t) => t.alert);
}
