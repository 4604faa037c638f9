/** @module Chart specs (vega-lite) by chart family, built by pure functions from run figures: what pages and `target-charts.ts` import. */

// Pages render these specs to SVG at build time (see `../svg.ts`); the compare page renders
// `overlaySpec` in the browser.
//
// Every chart of levels is drawn against the levels' load axis (`axis.ts`: concurrency on a log-2
// axis, the offered rate linear from zero); what differs by axis is data in `AXES`, not a second spec.
//
// Honesty rules every spec follows: measured points are drawn as marks and joined by straight
// segments only (no smoothing that invents values between them); throughput axes start at zero, so
// a run-to-run wobble of a few percent looks like a few percent of the bar it sits on; latency uses
// a log axis because its percentiles span orders of magnitude, and a log axis shows ratios evenly.
// Colours are CSS variables (`var(--agg)`...) that the page defines for light and dark mode, and
// every series also differs by marker shape, so colour never carries meaning alone.

export {
  AGGREGATE_TITLE,
  AXES,
  type AxisEntry,
  CONCURRENCY_TITLE,
  type LevelFigure,
  type LevelPoint,
  type LevelSeries,
  type LoadAxis,
  levelPoint,
  levelPoints,
  loadAxisEncoding,
  MEASURES,
  type MeasureKey,
  PER_STREAM_TITLE,
  RATE_TITLE,
  type SourceLevel,
} from "./axis.ts";
export { type BandPoint, type HistoryBands, historySpec, timeAxis } from "./history.ts";
export { latencySpec, overlaySpec, standingCurvesSpec, throughputCurvesSpec } from "./levels.ts";
export { PROMPT_TOKENS_TITLE, prefillSpec } from "./prefill.ts";
export { CHART_COLORS, CONFIG } from "./shared.ts";
export { tradeoffSpec } from "./tradeoff.ts";
export { type TurnPoint, turnsSpec } from "./turns.ts";
