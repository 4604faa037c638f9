/**
 * @module What a scenario's compare page draws, whatever the load kind: overlay charts of measures
 * against the kind's axis, a table of one row per target, and which targets the build-time trade-off
 * chart draws. Which measures and which columns are the kind's (`src/kinds/`).
 */
import type { TopLevelSpec } from "vega-lite";
import { type LoadAxis, type MeasureKey, overlaySpec } from "./charts/index.ts";
import type { TargetView } from "./site-data.ts";
import { viewPoints } from "./view-points.ts";

/** The trade-off chart draws at most this many targets: every point is labelled, so 100 targets would make a page of megabytes. */
export const COMPARE_TRADEOFF_TARGETS = 12;

/** The targets with the highest median peak aggregate tok/s (the leaderboard's order), at most `COMPARE_TRADEOFF_TARGETS`. */
export function tradeoffTargets(targets: TargetView[]): TargetView[] {
  const peak = (t: TargetView) => t.standing.peak?.aggregateOutputTokensPerSecond.median ?? -1;
  return [...targets].sort((a, b) => peak(b) - peak(a)).slice(0, COMPARE_TRADEOFF_TARGETS);
}

/** One overlay chart of the compare page: drawn in the browser from `spec`, filtered to the picked targets. */
export interface CompareChart {
  /** Names the chart's element (`chart-<measure>`). */
  measure: string;
  spec: TopLevelSpec;
  caption: string;
}

/** A measure a compare page overlays, with its caption. */
export interface CompareMeasure {
  measure: MeasureKey;
  caption: string;
}

/** The overlay charts of views of one kind: each measure, every view's rows in it, against the kind's axis. */
export function compareCharts(
  views: readonly TargetView[],
  axis: LoadAxis,
  measures: readonly CompareMeasure[],
): CompareChart[] {
  const series = views.map((v) => ({ targetId: v.id, label: v.label, levels: viewPoints(v) }));
  return measures.map(({ measure, caption }) => ({
    measure,
    spec: overlaySpec({ axis, series, measures: [measure] }),
    caption,
  }));
}

/** A number cell: its value, decimals, and a tooltip. */
export interface NumberCell {
  value: number | null | undefined;
  digits: number;
  title?: string;
}

/** A table of one row per target: its name linked, then numbers. */
export interface TargetTable {
  label: string;
  /** Text before a link to the scenario's leaderboard, and after it; null for no caption. */
  caption: { before: string; link: string; after: string } | null;
  columns: string[];
  rows: { id: string; label: string; href: string; cells: NumberCell[] }[];
}
