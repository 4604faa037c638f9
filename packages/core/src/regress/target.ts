/**
 * @module Detection for one target, run by run, with its state in plain fields: the metric and
 * route trackers, the alerts so far, the open route change and the open stop. Each step is a small
 * method; the alerts are data, sending them is elsewhere.
 */
import type { Alert, AlertKind, MetricName } from "../alerts/index.ts";
import type { RunIndexEntry } from "../run-index/index.ts";
import { addRuns, bandVerdict, isBack, mergeShift, newTracked, relative, resolveAlert, type Tracked } from "./alert.ts";
import { type RouteChange, RouteTracker } from "./route.ts";
import { isJudged, isStopped, METRICS, metricValue } from "./series.ts";
import { mean } from "./stats.ts";
import { modelTitle, routeTitle, stoppedTitle, subjectOf } from "./title.ts";
import { ToolCallsWatch } from "./tool-calls.ts";
import { type DetectorOptions, MetricTracker, type ShiftEvent } from "./tracker.ts";

/** The finite value of every metric a run measured. */
function metricValues(run: RunIndexEntry): Map<MetricName, number> {
  const values = new Map<MetricName, number>();
  for (const m of METRICS) {
    const v = metricValue(run, m);
    if (v !== null && Number.isFinite(v)) values.set(m, v);
  }
  return values;
}

export class TargetDetector {
  private readonly trackers: Map<MetricName, MetricTracker>;
  private readonly route = new RouteTracker();
  /** Every alert opened so far, in the order opened. */
  private readonly tracked: Tracked[] = [];
  /** The route change still open, which a return to its old provider resolves. */
  private openRoute: Tracked | null = null;
  /** The open "stopped answering" alert, which `resolveRuns` answering runs resolve. */
  private stopped: Tracked | null = null;
  /** Whether a judged run was seen: a target that never answered has not stopped answering. */
  private answered = false;
  /** The latest same-model verdict that said anything (`same` or `differs`), and the open model change. */
  private modelVerdict: "same" | "differs" | null = null;
  private openModel: Tracked | null = null;
  /** The schema-valid and right-tool shares of tool calls against their standing interval. */
  private readonly toolCalls: ToolCallsWatch;

  /** `runs`: one target's runs, oldest first. */
  constructor(
    private readonly runs: readonly RunIndexEntry[],
    private readonly options: DetectorOptions,
  ) {
    this.trackers = new Map(METRICS.map((m) => [m, new MetricTracker(m, options)] as const));
    this.toolCalls = new ToolCallsWatch(runs, (t) => this.tracked.push(t));
  }

  /** Feeds every run in order; returns the target's alerts in the order they were opened. */
  detect(): Alert[] {
    for (const [i, run] of this.runs.entries()) this.observe(run, i);
    return this.tracked.map((t) => t.alert);
  }

  private observe(run: RunIndexEntry, index: number): void {
    const change = this.route.observe(index, run.servedProviders);
    if (change) this.onRoute(change, index, run.startedAt);
    this.onSameModel(run, index);
    this.toolCalls.observe(run, index);
    if (isStopped(run)) {
      this.onStopped(run, index);
      return;
    }
    this.countAnswer(run.startedAt);
    if (!isJudged(run)) return;
    this.answered = true;
    const values = metricValues(run);
    // Resolution first: runs back in the old band give the old baseline back instead of raising an improvement.
    const restored = this.resolveReturns(values, run.startedAt);
    for (const [metric, value] of values) {
      if (!restored.has(metric)) this.onMetric(metric, value, index, run.startedAt);
    }
  }

  private open(kind: AlertKind, cause: Tracked["cause"], firstIndex: number, index: number): Tracked {
    const t = newTracked(kind, cause, this.runs[firstIndex] as RunIndexEntry, this.runs[index] as RunIndexEntry, index);
    this.tracked.push(t);
    return t;
  }

  private onRoute(change: RouteChange | "resolved", index: number, at: string): void {
    if (change === "resolved") {
      if (this.openRoute) resolveAlert(this.openRoute, at);
      this.openRoute = null;
      return;
    }
    const t =
      change.extendsOpen && this.openRoute
        ? this.openRoute
        : this.open("route_change", "route", change.indices[0] as number, index);
    t.alert.served = { before: change.before, after: change.after };
    t.alert.title = routeTitle(subjectOf(t.alert), change.before, change.after);
    t.alert.updatedAt = at;
    addRuns(t, this.runs, change.indices);
    this.openRoute = t;
  }

  /**
   * A run's same-model verdict: `differs` after `same` opens a model change (no confirmation: the
   * test's own error rate is 1 %); `same` resolves an open one. Other verdicts (no reference, too few
   * samples) say nothing either way.
   */
  private onSameModel(run: RunIndexEntry, index: number): void {
    const verdict = run.sameModel;
    if (verdict?.verdict !== "same" && verdict?.verdict !== "differs") return;
    if (verdict.verdict === "same" && this.openModel) {
      resolveAlert(this.openModel, run.startedAt);
      this.openModel = null;
    } else if (verdict.verdict === "differs" && this.openModel) {
      addRuns(this.openModel, this.runs, [index]);
    } else if (verdict.verdict === "differs" && this.modelVerdict === "same") {
      const t = this.open("model_change", "model", index, index);
      t.alert.sameModel = {
        reference: verdict.reference,
        pValue: verdict.pValue,
        reason: verdict.reason,
        cause: verdict.cause,
      };
      t.alert.title = modelTitle(subjectOf(t.alert), verdict.reference, verdict.reason);
      addRuns(t, this.runs, [index]);
      this.openModel = t;
    }
    this.modelVerdict = verdict.verdict;
  }

  /** A run that answered nothing: opens the stop on the first one after an answer, else holds it open. */
  private onStopped(run: RunIndexEntry, index: number): void {
    if (this.stopped) {
      this.stopped.back = 0;
      return;
    }
    if (!this.answered) return;
    // Catastrophic: alerts on its first run, no confirmation, no baseline needed.
    const t = this.open("regression", "stopped", index, index);
    const before = this.trackers.get("errorRate")?.level() ?? { median: 0, spread: 0, runs: 0 };
    const after = { median: 1, spread: 0, runs: 1 };
    t.alert.changes = [{ metric: "errorRate", before, after, relativeChange: relative(before.median, after.median) }];
    t.alert.metrics = ["errorRate"];
    t.alert.severity = "critical";
    t.catastrophic = true;
    t.alert.title = stoppedTitle(
      subjectOf(t.alert),
      run.levels.reduce((sum, l) => sum + l.sent, 0),
    );
    addRuns(t, this.runs, [index]);
    this.stopped = t;
  }

  /** A run that answered: counts towards resolving an open stop. */
  private countAnswer(at: string): void {
    if (this.stopped && ++this.stopped.back >= this.options.resolveRuns) {
      resolveAlert(this.stopped, at);
      this.stopped = null;
    }
  }

  /**
   * Counts the run towards each open regression's return to its old bands; a regression back for
   * `resolveRuns` runs resolves, and its metrics' trackers get the old baseline back (when no later
   * change replaced it). Returns the metrics so restored: this run is not judged again for them.
   */
  private resolveReturns(values: ReadonlyMap<MetricName, number>, at: string): Set<MetricName> {
    const restored = new Set<MetricName>();
    for (const t of this.tracked) {
      if (t.cause !== "shift" || t.alert.kind !== "regression" || t.alert.state !== "open") continue;
      const verdict = bandVerdict(t, values);
      if (verdict === "unseen") continue;
      if (verdict === "out") {
        t.back = 0;
        t.returned.clear();
        continue;
      }
      t.back++;
      for (const metric of t.old.keys()) {
        const v = values.get(metric);
        if (v !== undefined) t.returned.set(metric, [...(t.returned.get(metric) ?? []), v]);
      }
      if (t.back < this.options.resolveRuns) continue;
      resolveAlert(t, at);
      for (const metric of this.restoreBaselines(t)) restored.add(metric);
    }
    return restored;
  }

  /** Gives each metric of a resolved regression its old baseline back, unless a later change restarted it. */
  private restoreBaselines(t: Tracked): MetricName[] {
    const restored: MetricName[] = [];
    for (const [metric, old] of t.old) {
      const tracker = this.trackers.get(metric);
      if (!tracker || old.epoch === null || tracker.epoch !== old.epoch) continue;
      tracker.restore(old.baseline.window, t.returned.get(metric) ?? []);
      restored.push(metric);
    }
    return restored;
  }

  /** Feeds one metric's value to its tracker and files the shift it reports, if any. */
  private onMetric(metric: MetricName, value: number, index: number, at: string): void {
    const tracker = this.trackers.get(metric);
    const e = tracker?.observe(index, value);
    if (!tracker || !e) return;
    const kind: AlertKind = e.direction === "bad" ? "regression" : "improvement";
    if (kind === "improvement" && e.confirmed && this.returns(e, index)) return;
    const t = this.alertFor(e, kind, index);
    mergeShift(t, e, this.runs, at);
    // An unconfirmed (catastrophic) shift stays pending: its confirmation must grow this alert.
    if (!e.confirmed) tracker.tieAlert(t.alert.id);
  }

  /** The alert a shift belongs to: the one its catastrophic run opened, or one of the same kind it overlaps. */
  private alertFor(e: ShiftEvent, kind: AlertKind, index: number): Tracked {
    const own = e.alertId && this.tracked.find((t) => t.alert.id === e.alertId);
    if (own) return own;
    const first = e.indices[0] as number;
    for (let j = this.tracked.length - 1; j >= 0; j--) {
      const t = this.tracked[j] as Tracked;
      if (t.cause !== "shift" || t.alert.kind !== kind) continue;
      if (kind === "regression" && t.alert.state !== "open") continue;
      if (first <= t.openedIndex) return t;
    }
    return this.open(kind, "shift", first, index);
  }

  /**
   * A confirmed rise of a metric that an open regression holds, back to its old band, is that
   * regression's return, not an improvement: the metric gets its old baseline back, and the
   * regression resolves once all its metrics are back.
   */
  private returns(e: ShiftEvent, index: number): boolean {
    const t = [...this.tracked]
      .reverse()
      .find(
        (a) => a.cause === "shift" && a.alert.kind === "regression" && a.alert.state === "open" && a.old.has(e.metric),
      );
    const old = t?.old.get(e.metric);
    if (!t || !old || !isBack(e.metric, mean(e.values), old.baseline)) return false;
    this.trackers.get(e.metric)?.restore(old.baseline.window, e.values);
    t.returnedMetrics.add(e.metric);
    if ([...t.old.keys()].every((m) => t.returnedMetrics.has(m))) {
      resolveAlert(t, (this.runs[index] as RunIndexEntry).startedAt);
    }
    return true;
  }
}
