/** @module Plain-text rendering of an alert for people (mail bodies, chat messages). */
import {
  type Alert,
  type MetricChange,
  type MetricName,
  type SeriesLevel,
  TOOL_MEASURE_WORDS,
} from "../alerts/index.ts";
import { FIGURE_LABELS } from "../labels/index.ts";
import { VERDICT_MEASURE_WORDS, type VerdictMeasure } from "../tool-calls/verdict.ts";

/** Three significant digits are enough to read a change; more suggests a precision we lack. */
function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  return String(Number(value.toPrecision(3)));
}

function formatValue(metric: MetricName, value: number): string {
  const { unit } = FIGURE_LABELS[metric];
  if (unit === "fraction") return `${formatNumber(value * 100)} %`;
  return unit ? `${formatNumber(value)} ${unit}` : formatNumber(value);
}

function formatLevel(metric: MetricName, level: SeriesLevel): string {
  return `${formatValue(metric, level.median)} (±${formatValue(metric, level.spread)}, ${level.runs} runs)`;
}

/** One line per moved metric: `single-stream: 80 tok/s (±2 tok/s, 12 runs) → 52 tok/s (...), -35 %`. */
export function formatChange(change: MetricChange): string {
  const rel =
    change.relativeChange === null
      ? ""
      : `, ${change.relativeChange >= 0 ? "+" : ""}${formatNumber(change.relativeChange * 100)} %`;
  const { label } = FIGURE_LABELS[change.metric];
  return `${label}: ${formatLevel(change.metric, change.before)} → ${formatLevel(change.metric, change.after)}${rel}`;
}

const share = (value: number) => `${formatNumber(value * 100)} %`;

/**
 * The cause and the reference, then one line per measure found lower:
 * `schema-valid arguments: 60/75 prompts against the reference's 75/75 (15 lost, 0 gained), p = 0.0003`
 * (an alert recorded before the alert followed the verdict: `schema-valid arguments: 96 % (93-98 %,
 * 12 runs) → 71 % (59-80 %, 37 of 52)`).
 */
export function toolCallLines(toolCalls: NonNullable<Alert["toolCalls"]>): string[] {
  // The cause and the reference; the reason only where no measure line follows to give the counts.
  const against = toolCalls.reference ? `, against the reference ${toolCalls.reference}` : "";
  const why = toolCalls.measures.length === 0 && toolCalls.reason ? `: ${toolCalls.reason}` : "";
  const cause = toolCalls.cause ? [`cause: ${toolCalls.cause}${against}${why}`] : [];
  return [
    ...cause,
    ...toolCalls.measures.map((m) =>
      "before" in m
        ? `${TOOL_MEASURE_WORDS[m.measure]}: ${share(m.before.median)} (${share(m.before.low)}-${share(m.before.high)}, ${m.before.n} runs) → ${share(m.after.share)} (${share(m.after.low)}-${share(m.after.high)}, ${m.after.successes} of ${m.after.trials})`
        : `${VERDICT_MEASURE_WORDS[m.measure as VerdictMeasure] ?? m.measure}: ${m.route}/${m.prompts} prompts against the reference's ${m.reference}/${m.prompts} (${m.lost} lost, ${m.gained} gained), p = ${formatNumber(m.pValue)}`,
    ),
  ];
}

/** A short lead: `Regression open`, `Route change resolved`. */
export function alertStatus(alert: Alert): string {
  const kind =
    alert.kind === "route_change"
      ? "Route change"
      : alert.kind === "model_change"
        ? "Model change"
        : alert.kind === "tool_calls_regression"
          ? "Tool-call regression"
          : alert.kind === "regression"
            ? "Regression"
            : "Improvement";
  return `${kind} ${alert.state}`;
}

/** The body lines: title, status, target, every change, the served providers, the runs. */
export function alertLines(alert: Alert, link?: string): string[] {
  // A target's scenarios are separate series: a RAG regression says so (chat, the default, goes unnamed).
  const scenario = alert.scenario === "chat" ? "" : `, scenario ${alert.scenario}`;
  const lines = [
    alert.title,
    "",
    `${alertStatus(alert)} (${alert.severity}) on ${alert.label} [${alert.targetId}${scenario}]`,
  ];
  lines.push(`changed at ${alert.changedAt}, opened at ${alert.openedAt}`);
  if (alert.resolvedAt) lines.push(`resolved at ${alert.resolvedAt}`);
  if (alert.changes.length > 0) lines.push("", ...alert.changes.map(formatChange));
  if (alert.toolCalls) lines.push("", ...toolCallLines(alert.toolCalls));
  if (alert.served) {
    lines.push(
      "",
      `served by: ${alert.served.before.join(", ") || "none"} → ${alert.served.after.join(", ") || "none"}`,
    );
  }
  if (alert.runIds.length > 0) lines.push("", `runs: ${alert.runIds.join(", ")}`);
  if (link) lines.push("", link);
  lines.push("", `alert id: ${alert.id}`);
  return lines;
}
