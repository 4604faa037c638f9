/** @module What every chart family shares: the schema, the theme and series colours, axis titles, the zero-based tok/s scale (the load axes are in `axis.ts`). */

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
/**
 * Chart sizes, in SVG pixels. A chart is about 490 px wide in all: two sit side by side in a laptop's
 * 1,168 px column at their own size, and a 370 px phone column scales one by about 0.75, which the
 * font sizes below survive (14 px text stays above 10 px on screen).
 */
export const PLOT_WIDTH = 400;
export const PLOT_HEIGHT = 240;
/** A panel of a chart stacked in two (latency): shorter, so the pair stays about one chart tall. */
export const PANEL_HEIGHT = 170;
/** Text sizes, SVG pixels: see PLOT_WIDTH for why none is under 13. */
export const FONT_SIZE = 14;
export const SMALL_FONT_SIZE = 13;
/** The shared chart theme: transparent background, ink and grid from the page's CSS variables. */
export const CONFIG = {
  font: "system-ui, sans-serif",
  background: "transparent",
  axis: {
    labelFontSize: FONT_SIZE,
    titleFontSize: FONT_SIZE,
    labelColor: CHART_COLORS.ink,
    titleColor: CHART_COLORS.ink,
    domainColor: CHART_COLORS.muted,
    tickColor: CHART_COLORS.muted,
    gridColor: CHART_COLORS.grid,
  },
  legend: {
    labelColor: CHART_COLORS.ink,
    titleColor: CHART_COLORS.ink,
    labelFontSize: FONT_SIZE,
    titleFontSize: FONT_SIZE,
  },
  title: { color: CHART_COLORS.ink, subtitleColor: CHART_COLORS.muted, fontSize: FONT_SIZE + 1 },
  header: { labelColor: CHART_COLORS.ink, titleColor: CHART_COLORS.ink, labelFontSize: FONT_SIZE },
  text: { color: CHART_COLORS.ink },
  view: { stroke: null },
};

/** A tok/s axis from zero (see the module note in `index.ts`): the bar a wobble is measured against is all of it. */
export const THROUGHPUT_SCALE = { zero: true, nice: true } as const;

/** The rows with a finite value: a level with no figure is left out, never plotted as zero. */
export function present<T>(rows: (T & { value: number | null })[]): (T & { value: number })[] {
  return rows.filter((r): r is T & { value: number } => r.value !== null && Number.isFinite(r.value));
}

/** Characters per line of a legend label: a long route name wraps at a space rather than be cut with an ellipsis. */
export const LEGEND_LINE_CHARS = 34;

/**
 * The legend of charts that tell series apart by colour and shape: below the plot, one entry a row,
 * each name whole (no pixel limit) and wrapped at spaces into lines of LEGEND_LINE_CHARS.
 */
export const SERIES_LEGEND = {
  orient: "bottom",
  direction: "vertical",
  columns: 1,
  labelLimit: 0,
  labelExpr: `split(trim(replace(datum.label, /(.{1,${LEGEND_LINE_CHARS}})(\\s+|$)/g, '$1\\n')), '\\n')`,
} as const;
