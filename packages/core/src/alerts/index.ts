/**
 * @module Alerts (docs/methodology.md, Regressions): what regression detection returns and `alerts.json` holds.
 * Detection produces these; delivery (feeds, SNS, webhook) reads them. Types share schema names.
 */
import { z } from "zod";

/** The series detection watches, each with the direction that is good. */
export const MetricName = z.enum([
  "singleStreamOutputTokensPerSecond",
  "singleStreamTtftP50Ms",
  "peakAggregateOutputTokensPerSecond",
  "kneeConcurrency",
  "errorRate",
  "rateLimitRate",
  "capacityRequestsPerSecond",
]);
export type MetricName = z.infer<typeof MetricName>;

/** `higher` when a rise is an improvement, `lower` when a fall is. */
export const METRIC_DIRECTION: Record<MetricName, "higher" | "lower"> = {
  singleStreamOutputTokensPerSecond: "higher",
  singleStreamTtftP50Ms: "lower",
  peakAggregateOutputTokensPerSecond: "higher",
  kneeConcurrency: "higher",
  errorRate: "lower",
  rateLimitRate: "lower",
  capacityRequestsPerSecond: "higher",
};

/** A level of a series over a window of runs: its median and its spread (MAD, same unit). */
export const SeriesLevel = z.object({ median: z.number(), spread: z.number().nonnegative(), runs: z.number().int() });
export type SeriesLevel = z.infer<typeof SeriesLevel>;

/** How one metric moved in a change. */
export const MetricChange = z.object({
  metric: MetricName,
  before: SeriesLevel,
  after: SeriesLevel,
  /** after.median / before.median − 1; null when before.median is 0. */
  relativeChange: z.number().nullable(),
});
export type MetricChange = z.infer<typeof MetricChange>;

/**
 * `model_change`: a route whose same-model verdict turned from `same` to `differs` (docs/methodology.md,
 * same model); it resolves when the route is judged `same` again. `tool_calls_regression`: a route's
 * tool-call verdict against its reference turned `worse` (it stopped calling tools, or fails prompts
 * its reference meets), or a route that took tools began to refuse them; it resolves when a run of the
 * route is judged `same` again (docs/methodology.md#tool-calls).
 */
export const AlertKind = z.enum(["regression", "improvement", "route_change", "model_change", "tool_calls_regression"]);
export type AlertKind = z.infer<typeof AlertKind>;
/** The tool-call shares the `tool_calls_regression` alert watched against the route's own history, in alerts recorded before it followed the verdict. */
export const ToolCallsMeasure = z.enum(["argumentsValid", "rightTool"]);
export type ToolCallsMeasure = z.infer<typeof ToolCallsMeasure>;
/** A watched share's name in an alert's words. */
export const TOOL_MEASURE_WORDS: Record<ToolCallsMeasure, string> = {
  argumentsValid: "schema-valid arguments",
  rightTool: "right tool",
};
/** A measure the verdict found lower, as a `tool_calls_regression` alert carries it. */
export const ToolCallsAlertMeasure = z.object({
  /** A verdict measure (`everyMeasure`, `callWhenNeeded`, `argumentsValid`, ...: docs/methodology.md#tool-calls). */
  measure: z.string(),
  prompts: z.number().int().nonnegative(),
  route: z.number().int().nonnegative(),
  reference: z.number().int().nonnegative(),
  lost: z.number().int().nonnegative(),
  gained: z.number().int().nonnegative(),
  pValue: z.number().min(0).max(1),
});
export type ToolCallsAlertMeasure = z.infer<typeof ToolCallsAlertMeasure>;
/** A share that fell below its standing interval, in alerts recorded before the alert followed the verdict. */
export const StandingShareDrop = z.object({
  measure: ToolCallsMeasure,
  before: z.object({ median: z.number(), low: z.number(), high: z.number(), n: z.number().int().positive() }),
  after: z.object({
    successes: z.number().int().nonnegative(),
    trials: z.number().int().positive(),
    share: z.number(),
    low: z.number(),
    high: z.number(),
  }),
});
export type StandingShareDrop = z.infer<typeof StandingShareDrop>;
export const AlertState = z.enum(["open", "resolved"]);
export type AlertState = z.infer<typeof AlertState>;
export const Severity = z.enum(["info", "warning", "critical"]);
export type Severity = z.infer<typeof Severity>;

/** One change of one target, grouped across its metrics. */
export const Alert = z.object({
  /** Stable across re-evaluations: derived from the target, the scenario (other than chat), the kind and the first run after the change. */
  id: z.string(),
  targetId: z.string(),
  /** The scenario whose runs changed; `chat` in alerts recorded before scenarios. */
  scenario: z.string().default("chat"),
  label: z.string(),
  kind: AlertKind,
  state: AlertState,
  severity: Severity,
  /** The metrics that moved (for route_change: empty). */
  metrics: z.array(MetricName),
  changes: z.array(MetricChange),
  /** For route_change: the providers that served before and after. */
  served: z.object({ before: z.array(z.string()), after: z.array(z.string()) }).nullable(),
  /**
   * For model_change: the verdict that opened it: the reference route's target id, the Holm-adjusted
   * p-value (null when not tested), why in words, and as a code (`distribution`, `tokenizer`). Absent
   * for the other kinds.
   */
  sameModel: z
    .object({ reference: z.string().nullable(), pValue: z.number().nullable(), reason: z.string(), cause: z.string() })
    .optional(),
  /**
   * For tool_calls_regression: the cause of the verdict that opened it (`stopped_calling`, `lower`, or
   * `no_tool_support` for a route that began to refuse tools), the reference route, the verdict's
   * reason, and each measure found lower (`ToolCallsAlertMeasure`: the prompts it applies to, those
   * the route and the reference met, those lost and gained, the Holm-adjusted p-value). Alerts
   * recorded before the alert followed the verdict hold their shares against the route's own history
   * (`StandingShareDrop`), with no cause. Absent for the other kinds.
   */
  toolCalls: z
    .object({
      suite: z.string(),
      cause: z.string().optional(),
      reference: z.string().nullable().optional(),
      reason: z.string().optional(),
      measures: z.array(z.union([ToolCallsAlertMeasure, StandingShareDrop])),
    })
    .optional(),
  /** startedAt of the first run after the change. */
  changedAt: z.string(),
  /** startedAt of the run that confirmed it (the alert's open time). */
  openedAt: z.string(),
  /** startedAt of the run that showed the series back; null while open. */
  resolvedAt: z.string().nullable(),
  /** Changes whenever state changes (the Atom entry's `updated`). */
  updatedAt: z.string(),
  /** Run ids that show the change, in order. */
  runIds: z.array(z.string()),
  /** One sentence for people: what moved, from what to what. */
  title: z.string(),
});
export type Alert = z.infer<typeof Alert>;

/** The store key `alerts.json`. */
export const AlertsFile = z.object({
  schemaVersion: z.literal(1),
  generatedAt: z.string(),
  alerts: z.array(Alert),
});
export type AlertsFile = z.infer<typeof AlertsFile>;

export const ALERTS_KEY = "alerts.json";
