/** @module What every chart family shares: the schema, the theme and series colours, axis titles, the zero-based tok/s scale, the concurrency axis. */
import { figureHeading } from "@kneeboard/core/labels";

/** Axis titles from the core's one table of figure labels, with what each figure counts. */
export const AGGREGATE_TITLE = `${figureHeading("aggregateOutputTokensPerSecond")} (all streams)`;
export const PER_STREAM_TITLE = `${figureHeading("perStreamOutputTokensPerSecondP50")} (one user)`;

/** The per-level figures a chart needs (a subset of the index's LevelFigures). */
export interface LevelPoint {
  concurrency: number;
  aggregateOutputTokensPerSecond: number | null;
  perStreamOutputTokensPerSecondP50: number | null;
  ttftP50Ms: number | null;
  ttftP95Ms: number | null;
  ttftP99Ms: number | null;
  e2eP50Ms: number | null;
  e2eP95Ms: number | null;
  e2eP99Ms: number | null;
  valid: boolean;
}

/** One target's levels, as the charts that overlay several targets take them. */
export interface TargetSeries {
  targetId: string;
  label: string;
  levels: LevelPoint[];
}

export const SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";
/** Series colours and chart ink: CSS variables, so one SVG follows the page's light or dark scheme. */
export const CHART_COLORS = {
  aggregate: "var(--agg)",
  perStream: "var(--ps)",
  third: "var(--c3)",
  ink: "var(--fg)",
  muted: "var(--muted)",
  grid: "var(--grid)",
  band: "var(--band)",
} as const;
export const AGGREGATE_COLOR = CHART_COLORS.aggregate;
export const PER_STREAM_COLOR = CHART_COLORS.perStream;
/** Shapes that tell series apart without colour. */
export const AGGREGATE_SHAPE = "circle";
export const PER_STREAM_SHAPE = "square";
/** The shared chart theme: transparent background, ink and grid from the page's CSS variables. */
export const CONFIG = {
  font: "system-ui, sans-serif",
  background: "transparent",
  axis: {
    labelFontSize: 11,
    titleFontSize: 12,
    labelColor: CHART_COLORS.ink,
    titleColor: CHART_COLORS.ink,
    domainColor: CHART_COLORS.muted,
    tickColor: CHART_COLORS.muted,
    gridColor: CHART_COLORS.grid,
  },
  legend: { labelColor: CHART_COLORS.ink, titleColor: CHART_COLORS.ink, labelFontSize: 11 },
  title: { color: CHART_COLORS.ink, subtitleColor: CHART_COLORS.muted },
  header: { labelColor: CHART_COLORS.ink, titleColor: CHART_COLORS.ink },
  text: { color: CHART_COLORS.ink },
  view: { stroke: null },
};

/** A tok/s axis from zero (see the module note in `index.ts`): the bar a wobble is measured against is all of it. */
export const THROUGHPUT_SCALE = { zero: true, nice: true } as const;

/** Concurrency on a log-2 axis, ticks at the measured levels. */
export function concurrencyAxis(levels: number[]) {
  return {
    field: "concurrency",
    type: "quantitative" as const,
    title: "concurrency (requests in flight)",
    scale: { type: "log" as const, base: 2 },
    axis: { values: levels, format: "d" },
  };
}

/** The rows with a finite value: a level with no figure is left out, never plotted as zero. */
export function present<T>(rows: (T & { value: number | null })[]): (T & { value: number })[] {
  return rows.filter((r): r is T & { value: number } => r.value !== null && Number.isFinite(r.value));
}
