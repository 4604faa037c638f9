/**
 * @module The baseline and pending shift of one metric of one target: a robust baseline (median and
 * robust noise of a trailing window) and persistence before a shift is confirmed.
 */

import type { SeriesLevel } from "../alerts/index.ts";
import { METRIC_DIRECTION, type MetricName } from "../alerts/index.ts";
import { isDiscrete, isRate, isThroughput } from "./series.ts";
import { levelOf, mad, mean, median, noiseSigma } from "./stats.ts";

/** Tuning of detection; `DEFAULT_DETECTOR` is what `detectAlerts` uses (figures from `bench/regress.ts`). */
export interface DetectorOptions {
  /**
   * Trailing runs whose median is the baseline level and whose spread is its noise. 40, not 20: the
   * noise of 20 runs is itself too noisy, and an underestimated noise is what raises false alarms.
   */
  windowRuns: number;
  /** A short baseline's noise is widened by (1 + smallWindowWidening / runs), as a t quantile is wider than a normal one. */
  smallWindowWidening: number;
  /** Runs a baseline needs before it judges (after a start or a restart). */
  minBaselineRuns: number;
  /** A run is shifted beyond this many sigmas of the baseline's noise (`noiseSigma`) from its median... */
  runSigmas: number;
  /** ...and a shift is confirmed when the mean of `confirmRuns` shifted runs lies beyond this many (less for more runs). */
  confirmSigmas: number;
  /** Smallest relative change that counts, whatever the noise (a quiet series must not alert on 2 %). */
  minRelativeChange: number;
  /** Smallest change of a rate (error, 429) that counts, absolute (0.05 = 5 percentage points). */
  minRateChange: number;
  /** Shifted runs that confirm a shift (the first one and two later ones). */
  confirmRuns: number;
  /** Non-shifted runs tolerated inside a pending shift before it is dropped. */
  toleratedGaps: number;
  /** Consecutive runs back inside the old band that resolve a regression. */
  resolveRuns: number;
  /** Throughput below this fraction of its baseline alerts on its first run. */
  catastrophicFraction: number;
}

export const DEFAULT_DETECTOR: DetectorOptions = {
  windowRuns: 40,
  smallWindowWidening: 3,
  minBaselineRuns: 10,
  runSigmas: 2.25,
  confirmSigmas: 2.75,
  minRelativeChange: 0.08,
  minRateChange: 0.05,
  confirmRuns: 3,
  toleratedGaps: 1,
  resolveRuns: 3,
  catastrophicFraction: 0.5,
};

export type Direction = "bad" | "good";

/** The baseline a value is judged against. */
export interface Baseline {
  median: number;
  /** MAD, in the metric's unit. */
  spread: number;
  runs: number;
  /** Half-width of the band a run must leave to be shifted. */
  runBand: number;
  /** Distance the mean of `confirmRuns` shifted runs must pass to confirm (before the floor). */
  confirmSigma: number;
  /** The smallest change that counts, in the metric's unit. */
  floor: number;
  /** The window's values, kept so a resolved regression can give the old baseline back. */
  window: number[];
}

/** A shift seen by a tracker: confirmed, or catastrophic and alerting before confirmation. */
export interface ShiftEvent {
  metric: MetricName;
  direction: Direction;
  /** Run indices (into the target's run list) of the shifted runs, in order. */
  indices: number[];
  values: number[];
  baseline: Baseline;
  confirmed: boolean;
  catastrophic: boolean;
  /** Id of the alert a catastrophic run already opened for this shift, so its confirmation grows that alert. */
  alertId: string | null;
  /** Tracker epoch after a confirmation's restart (null when the baseline did not restart). */
  epoch: number | null;
}

export interface Pending {
  direction: Direction;
  baseline: Baseline;
  indices: number[];
  values: number[];
  /** Every value since the shift began, gaps included, in order: the new baseline when confirmed. */
  all: number[];
  gaps: number;
  /** Id of the alert a catastrophic run already opened for this shift. */
  alertId: string | null;
}

export class MetricTracker {
  private window: number[] = [];
  private pending: Pending | null = null;
  /** Counts baseline restarts, so a resolution only restores a baseline its own change replaced. */
  epoch = 0;

  constructor(
    readonly metric: MetricName,
    private readonly options: DetectorOptions,
  ) {}

  /** The current baseline, or null while it has fewer than `minBaselineRuns` runs. */
  baseline(): Baseline | null {
    if (this.window.length < this.options.minBaselineRuns) return null;
    const m = median(this.window);
    const sigma = noiseSigma(this.window) * (1 + this.options.smallWindowWidening / this.window.length);
    const floor = isRate(this.metric) ? this.options.minRateChange : this.options.minRelativeChange * Math.abs(m);
    return {
      median: m,
      spread: mad(this.window),
      runs: this.window.length,
      runBand: Math.max(this.options.runSigmas * sigma, floor),
      confirmSigma: this.options.confirmSigmas * sigma,
      floor,
      window: [...this.window],
    };
  }

  /** The baseline's level however few runs it has; null before any run. */
  level(): SeriesLevel | null {
    return this.window.length ? levelOf(this.window) : null;
  }

  /** Which way a value left the baseline, or null when it is inside the band. */
  private judge(value: number, b: Baseline): Direction | null {
    const deviation = value - b.median;
    if (Math.abs(deviation) <= b.runBand) return null;
    // A discrete series (knee) flips between neighbouring levels; a value the baseline itself shows
    // often is its noise, not a shift.
    if (isDiscrete(this.metric) && b.window.filter((v) => v === value).length >= 0.2 * b.window.length) return null;
    const rose = deviation > 0;
    return rose === (METRIC_DIRECTION[this.metric] === "higher") ? "good" : "bad";
  }

  /**
   * A run inside the band may sit in a pending shift only when it still leans its way, beyond half
   * the band: at a real step a run that just misses the band does, while noise rarely does.
   */
  private leans(value: number, p: Pending): boolean {
    const deviation = value - p.baseline.median;
    const half = p.baseline.runBand / 2;
    const rose = deviation > half;
    const fell = deviation < -half;
    const worse = METRIC_DIRECTION[this.metric] === "higher" ? fell : rose;
    const better = METRIC_DIRECTION[this.metric] === "higher" ? rose : fell;
    return p.direction === "bad" ? worse : better;
  }

  private push(...values: number[]): void {
    this.window.push(...values);
    if (this.window.length > this.options.windowRuns)
      this.window.splice(0, this.window.length - this.options.windowRuns);
  }

  /** Feeds the value of run `index`; returns a shift event when one is confirmed or catastrophic. */
  observe(index: number, value: number): ShiftEvent | null {
    const b = this.pending?.baseline ?? this.baseline();
    if (!b) {
      this.push(value);
      return null;
    }
    const direction = this.judge(value, b);
    const p = this.pending;
    if (p && direction === p.direction) {
      p.indices.push(index);
      p.values.push(value);
      p.all.push(value);
    } else if (p && direction === null && p.gaps < this.options.toleratedGaps && this.leans(value, p)) {
      p.gaps++;
      p.all.push(value);
      return null;
    } else {
      // The shift did not persist: its runs were noise after all and join the baseline.
      if (p) this.push(...p.all);
      this.pending = null;
      if (direction === null) {
        this.push(value);
        return null;
      }
      const fresh = this.baseline() ?? b;
      this.pending = {
        direction,
        baseline: fresh,
        indices: [index],
        values: [value],
        all: [value],
        gaps: 0,
        alertId: null,
      };
    }
    return this.check(this.pending as Pending, value);
  }

  private check(p: Pending, value: number): ShiftEvent | null {
    const b = p.baseline;
    const catastrophic =
      p.direction === "bad" && isThroughput(this.metric) && value < this.options.catastrophicFraction * b.median;
    const k = p.indices.length;
    // The mean of k runs is sqrt(k) times steadier than one: more shifted runs need a smaller distance.
    const confirmBand = Math.max(b.confirmSigma * Math.sqrt(this.options.confirmRuns / k), b.floor);
    const confirmed = k >= this.options.confirmRuns && Math.abs(mean(p.values) - b.median) > confirmBand;
    if (confirmed) {
      // The baseline restarts from the new level: its window is every run since the change.
      this.window = [];
      this.push(...p.all);
      this.pending = null;
      this.epoch++;
      return this.event(p, confirmed, catastrophic, this.epoch);
    }
    if (catastrophic && p.alertId === null) return this.event(p, confirmed, catastrophic, null);
    return null;
  }

  private event(p: Pending, confirmed: boolean, catastrophic: boolean, epoch: number | null): ShiftEvent {
    return {
      metric: this.metric,
      direction: p.direction,
      indices: [...p.indices],
      values: [...p.values],
      baseline: p.baseline,
      confirmed,
      catastrophic,
      alertId: p.alertId,
      epoch,
    };
  }

  /** After a regression resolved: the old baseline is back, with the runs that showed the return. */
  restore(window: readonly number[], returned: readonly number[]): void {
    this.window = [];
    this.push(...window, ...returned);
    this.pending = null;
  }

  /** Ties the pending shift (one reported before confirmation, as catastrophic) to the alert it opened. */
  tieAlert(alertId: string): void {
    if (this.pending) this.pending.alertId = alertId;
  }
}
