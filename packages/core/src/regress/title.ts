/** @module One human sentence per alert: what moved, which way, from what to what. */
import type { MetricChange, MetricName } from "../alerts/index.ts";
import { FIGURE_LABELS, shownUnit } from "../labels/index.ts";
import { isRate } from "./series.ts";

const name = (metric: MetricName) => FIGURE_LABELS[metric].label;
const unitOf = (metric: MetricName) => (shownUnit(metric) ? ` ${shownUnit(metric)}` : "");

function number(metric: MetricName, value: number): string {
  if (isRate(metric)) return (value * 100).toFixed(value < 0.1 ? 1 : 0);
  if (metric === "capacityRequestsPerSecond") return String(Number(value.toFixed(2)));
  return value.toFixed(Math.abs(value) >= 100 || metric === "kneeConcurrency" ? 0 : 1);
}

/** "peak aggregate fell 31 % (812 → 560 tok/s)"; rates and the knee say from-to, not a percentage. */
function phrase(change: MetricChange, detailed: boolean): string {
  const { metric, before, after } = change;
  const verb = after.median < before.median ? "fell" : "rose";
  const unit = unitOf(metric);
  const fromTo = `${number(metric, before.median)} → ${number(metric, after.median)}${unit}`;
  if (isRate(metric) || change.relativeChange === null) return `${name(metric)} ${verb} (${fromTo})`;
  const percent = `${Math.round(Math.abs(change.relativeChange) * 100)} %`;
  return detailed ? `${name(metric)} ${verb} ${percent} (${fromTo})` : `${name(metric)} ${verb} ${percent}`;
}

/** Who an alert is about: the target's label, with the scenario for any but `chat` ("Llama 8B (rag)"). */
export function subjectOf(alert: { label: string; scenario: string }): string {
  return alert.scenario === "chat" ? alert.label : `${alert.label} (${alert.scenario})`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The title of a regression or improvement: the first change in detail, the others short. */
export function shiftTitle(label: string, changes: readonly MetricChange[]): string {
  const parts = changes.map((c, i) => phrase(c, i === 0));
  const joined = parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "");
  return `${label}: ${capitalize(joined)}`;
}

export function stoppedTitle(label: string, sent: number): string {
  return `${label}: Stopped answering (0 of ${sent} requests succeeded)`;
}

export function routeTitle(label: string, before: readonly string[], after: readonly string[]): string {
  return `${label}: Served by ${after[0] ?? "unknown"} instead of ${before[0] ?? "unknown"}`;
}

/** "Llama 8B via X: No longer the same model as its reference llama-8b-maker (its completions differ ...)". */
export function modelTitle(label: string, reference: string | null, reason: string): string {
  return `${label}: No longer the same model as its reference ${reference ?? "route"} (${reason})`;
}

/**
 * "Llama 8B via X: Tool calls worse than its reference llama-8b-maker: it stopped calling tools (call
 * when needed 50/75 prompts against 75/75)"; for a route that began to refuse tools, "...: Tool calls
 * refused: the route no longer takes tools".
 */
export function toolCallsTitle(
  label: string,
  cause: string,
  reference: string | null,
  measures: readonly { words: string; prompts: number; route: number; reference: number }[],
): string {
  if (cause === "no_tool_support") return `${label}: Tool calls refused: the route no longer takes tools`;
  const parts = measures
    .slice(0, 3)
    .map((m) => `${m.words} ${m.route}/${m.prompts} prompts against ${m.reference}/${m.prompts}`);
  const more = measures.length > 3 ? `, and ${measures.length - 3} more` : "";
  const what = cause === "stopped_calling" ? "it stopped calling tools" : "it fails prompts its reference meets";
  return `${label}: Tool calls worse than its reference ${reference ?? "route"}: ${what} (${parts.join("; ")}${more})`;
}
