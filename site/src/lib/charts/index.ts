/** @module Chart specs (vega-lite) by chart family, built by pure functions from run figures: what pages and `target-charts.ts` import. */

// Pages render these specs to SVG at build time (see `../svg.ts`); the compare page renders
// `compareSpec` (closed loop) or `compareRateSpec` (open loop) in the browser.
//
// Honesty rules every spec follows: measured points are drawn as marks and joined by straight
// segments only (no smoothing that invents values between them); throughput axes start at zero, so
// a run-to-run wobble of a few percent looks like a few percent of the bar it sits on; latency uses
// a log axis because its percentiles span orders of magnitude, and a log axis shows ratios evenly.
// Colours are CSS variables (`var(--agg)`...) that the page defines for light and dark mode, and
// every series also differs by marker shape, so colour never carries meaning alone.

export {
  type CompareMeasure,
  type CompareRateMeasure,
  compareRateSpec,
  compareSpec,
} from "./compare.ts";
export { standingCurvesSpec, throughputCurvesSpec } from "./concurrency.ts";
export { type BandPoint, type HistoryBands, historySpec, timeAxis } from "./history.ts";
export { latencySpec } from "./latency.ts";
export { PROMPT_TOKENS_TITLE, prefillSpec } from "./prefill.ts";
export {
  RATE_TITLE,
  type RatePanel,
  type RateSeries,
  rateAxis,
  rateLatencySpec,
  rateRoutesSpec,
  rateThroughputSpec,
} from "./rate.ts";
export { CHART_COLORS, CONFIG, type LevelPoint, levelPoints } from "./shared.ts";
export { tradeoffSpec } from "./tradeoff.ts";
