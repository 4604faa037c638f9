/**
 * @module How each figure reads to a person: one label and one unit per figure, the single table
 * the CLI report, the alert texts (mail, chat, feeds) and the site all take their wording from.
 */

/** The unit a figure is stored in; a fraction is shown as a percentage. */
export type FigureUnit = "tok/s" | "req/s" | "ms" | "fraction" | "";

export interface FigureLabel {
  /** Lower case, without the unit: "peak aggregate". */
  label: string;
  unit: FigureUnit;
}

/** Run headline figures (the alerts' metrics) and per-level figures, by their names in the documents. */
export const FIGURE_LABELS = {
  singleStreamOutputTokensPerSecond: { label: "single-stream", unit: "tok/s" },
  singleStreamTtftP50Ms: { label: "single-stream TTFT p50", unit: "ms" },
  peakAggregateOutputTokensPerSecond: { label: "peak aggregate", unit: "tok/s" },
  kneeConcurrency: { label: "knee concurrency", unit: "" },
  errorRate: { label: "error rate", unit: "fraction" },
  rateLimitRate: { label: "429 rate", unit: "fraction" },
  capacityRequestsPerSecond: { label: "capacity at the SLO", unit: "req/s" },
  aggregateOutputTokensPerSecond: { label: "aggregate", unit: "tok/s" },
  perStreamOutputTokensPerSecondP50: { label: "per-stream p50", unit: "tok/s" },
  ttftP50Ms: { label: "TTFT p50", unit: "ms" },
  ttftP95Ms: { label: "TTFT p95", unit: "ms" },
  e2eP50Ms: { label: "e2e p50", unit: "ms" },
} as const satisfies Record<string, FigureLabel>;

export type FigureName = keyof typeof FIGURE_LABELS;

/** The unit as shown after a value or in a heading: a fraction reads as "%". */
export function shownUnit(name: FigureName): string {
  const { unit } = FIGURE_LABELS[name];
  return unit === "fraction" ? "%" : unit;
}

/** A column header or axis title: "peak aggregate tok/s", "TTFT p50 ms", "error rate %". */
export function figureHeading(name: FigureName): string {
  const unit = shownUnit(name);
  return unit ? `${FIGURE_LABELS[name].label} ${unit}` : FIGURE_LABELS[name].label;
}
