/**
 * @module The `tool_calls_regression` alert of one (target, scenario): each run's schema-valid and
 * right-tool shares of tool calls against their standing interval over the window's earlier runs
 * (the median and its order-statistic interval, as every standing figure). A run whose share lies
 * below that interval's low end, by at least `TOOL_CALLS_MIN_DROP` and with its whole 99 % Wilson
 * interval, opens the alert at once: its own interval already says the drop is not one run's sampling
 * noise (the standing interval bounds the median of runs, not one run's share, so the run's own
 * noise must be allowed for; at 95 % one faithful run in 70 would alert, at 99 % about one in 250). The alert keeps the interval it fell below,
 * and resolves at the first run whose share is back at or above its low end. Runs of an open
 * alert's fallen measure stay out of the window, so a lasting drop never becomes the standard.
 */
import type { ToolCallsMeasure } from "../alerts/index.ts";
import type { RunIndexEntry } from "../run-index/index.ts";
import { type Estimate, estimate } from "../standing/index.ts";
import { addRuns, newTracked, resolveAlert, type Tracked } from "./alert.ts";
import { subjectOf, toolCallsTitle } from "./title.ts";

/** The shares watched, in the order an alert lists them. */
export const WATCHED_TOOL_MEASURES: readonly ToolCallsMeasure[] = ["argumentsValid", "rightTool"];

/** Earlier runs a share's standing interval needs before it judges: fewer say nothing about a route's usual share. */
export const TOOL_CALLS_MIN_RUNS = 3;

/** Smallest drop below the standing interval's low end that counts (5 points), as for the other rates. */
export const TOOL_CALLS_MIN_DROP = 0.05;

/** z of the run's own interval: 99 % two-sided, so a faithful run's share falls wholly below by chance 0.5 % of the time. */
const RUN_Z = 2.576;

/** The Wilson score interval's upper end of successes in trials at `z`. */
export function wilsonHigh(successes: number, trials: number, z = RUN_Z): number {
  const p = successes / trials;
  const z2 = z * z;
  const centre = p + z2 / (2 * trials);
  const spread = z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return Math.min(1, (centre + spread) / (1 + z2 / trials));
}

/** A share below a standing interval: 5 points under its low end, its 99 % interval wholly under it. */
function isBelow(s: MeasuredShare, before: Estimate): boolean {
  return s.share <= before.low - TOOL_CALLS_MIN_DROP && wilsonHigh(s.successes, s.trials) < before.low;
}

/** A drop of this much or more (0.5 = 50 points) is critical, as a rate's is for the other regressions. */
const CRITICAL_DROP = 0.5;

type Share = NonNullable<RunIndexEntry["toolCalls"]>["shares"][ToolCallsMeasure];
type MeasuredShare = Share & { share: number; low: number; high: number };

/** A share the run measured (trials and an interval), else null. */
function measured(run: RunIndexEntry, measure: ToolCallsMeasure): MeasuredShare | null {
  if (run.toolCalls?.support !== "supported") return null;
  const s = run.toolCalls.shares[measure];
  if (s.trials === 0 || s.share === null || s.low === null || s.high === null) return null;
  return s as MeasuredShare;
}

export class ToolCallsWatch {
  /** Per measure, the shares of earlier runs that enter the standing interval, oldest first. */
  private readonly window = new Map<ToolCallsMeasure, number[]>(WATCHED_TOOL_MEASURES.map((m) => [m, []]));
  /** The open alert, and per fallen measure the interval it fell below. */
  private open: { t: Tracked; fell: Map<ToolCallsMeasure, Estimate> } | null = null;

  constructor(
    private readonly runs: readonly RunIndexEntry[],
    private readonly windowRuns: number,
    /** Files a newly opened alert with the detector. */
    private readonly file: (t: Tracked) => void,
  ) {}

  /** The standing interval of a measure over the window's earlier runs; null while it has too few. */
  private standing(measure: ToolCallsMeasure): Estimate | null {
    const values = this.window.get(measure) ?? [];
    return values.length >= TOOL_CALLS_MIN_RUNS ? estimate(values) : null;
  }

  private enter(measure: ToolCallsMeasure, value: number): void {
    const values = this.window.get(measure) ?? [];
    values.push(value);
    if (values.length > this.windowRuns) values.splice(0, values.length - this.windowRuns);
    this.window.set(measure, values);
  }

  /** Judges run `index`; runs without a supported tool-call phase say nothing. */
  observe(run: RunIndexEntry, index: number): void {
    const shares = new Map<ToolCallsMeasure, MeasuredShare>();
    for (const m of WATCHED_TOOL_MEASURES) {
      const s = measured(run, m);
      if (s) shares.set(m, s);
    }
    if (shares.size === 0) return;
    if (this.open) this.judgeOpen(run, index, shares);
    const fallen: [ToolCallsMeasure, MeasuredShare, Estimate][] = [];
    for (const [m, s] of shares) {
      if (this.open?.fell.has(m)) continue;
      const before = this.standing(m);
      if (before && isBelow(s, before)) fallen.push([m, s, before]);
      else this.enter(m, s.share);
    }
    if (fallen.length > 0) this.fall(run, index, fallen);
  }

  /** An open alert: runs still below grow it; a run whose every fallen share is back resolves it. */
  private judgeOpen(run: RunIndexEntry, index: number, shares: ReadonlyMap<ToolCallsMeasure, MeasuredShare>): void {
    const open = this.open as NonNullable<typeof this.open>;
    const seen = [...open.fell].filter(([m]) => shares.has(m));
    if (seen.length === 0) return;
    const back = seen.every(([m, before]) => (shares.get(m) as MeasuredShare).share > before.low - TOOL_CALLS_MIN_DROP);
    if (!back) {
      addRuns(open.t, this.runs, [index]);
      open.t.alert.updatedAt = run.startedAt;
      return;
    }
    resolveAlert(open.t, run.startedAt);
    this.open = null;
  }

  /** Opens the alert, or adds the measures that fell to the open one. */
  private fall(run: RunIndexEntry, index: number, fallen: [ToolCallsMeasure, MeasuredShare, Estimate][]): void {
    if (!this.open) {
      const t = newTracked("tool_calls_regression", "tools", run, run, index);
      t.alert.toolCalls = { suite: run.toolCalls?.suite ?? "", measures: [] };
      this.open = { t, fell: new Map() };
      this.file(t);
    }
    const { t, fell } = this.open;
    const toolCalls = t.alert.toolCalls as NonNullable<typeof t.alert.toolCalls>;
    for (const [measure, s, before] of fallen) {
      fell.set(measure, before);
      const after = { successes: s.successes, trials: s.trials, share: s.share, low: s.low, high: s.high };
      toolCalls.measures.push({ measure, before, after });
    }
    toolCalls.measures.sort(
      (a, b) => WATCHED_TOOL_MEASURES.indexOf(a.measure) - WATCHED_TOOL_MEASURES.indexOf(b.measure),
    );
    addRuns(t, this.runs, [index]);
    t.alert.severity = toolCalls.measures.some((x) => x.before.median - x.after.share >= CRITICAL_DROP)
      ? "critical"
      : "warning";
    t.alert.title = toolCallsTitle(subjectOf(t.alert), toolCalls.measures);
    t.alert.updatedAt = run.startedAt;
  }
}
