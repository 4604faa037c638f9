/**
 * @module A route's tool calls (issue 45) as the pages and downloads show them: the latest tool-call
 * run's shares, each with its count and Wilson 95 % interval, and its verdict against the model's
 * reference route. The tool calls test the route, not the workload, so a route has one view whatever
 * scenario its tool-call run was in. `same` only means no drop was detected at this suite's size.
 */
import { ToolCallShare as ToolShareSchema } from "@kneeboard/core/run";
import type { RunIndexEntry } from "@kneeboard/core/run-index";
import {
  TOOL_MEASURES,
  ToolCallsVerdict as ToolCallsVerdictSchema,
  type ToolMeasure,
} from "@kneeboard/core/tool-calls";
import { z } from "zod";
import { fmt } from "./format.ts";

type Brief = NonNullable<RunIndexEntry["toolCalls"]>;
export type ToolShare = z.infer<typeof ToolShareSchema>;
export type ToolCallsVerdict = z.infer<typeof ToolCallsVerdictSchema>;

/** What a reader is told of one measure: its name and what one trial of it is. */
export const TOOL_MEASURE_WORDS: Record<ToolMeasure, { label: string; title: string }> = {
  callWhenNeeded: { label: "calls when needed", title: "a prompt that needs a tool got a call" },
  noCallWhenNone: { label: "no call when none", title: "a prompt that needs no tool got no call" },
  rightTool: { label: "right tool", title: "the call named the tool the prompt needs" },
  argumentsParse: { label: "arguments parse", title: "the call's arguments parse as JSON" },
  argumentsValid: { label: "schema-valid", title: "the call's arguments are valid against the tool's JSON Schema" },
  argumentValues: { label: "argument values", title: "the arguments hold the values the prompt fixes" },
  parallelBoth: { label: "both parallel calls", title: "a prompt that needs two calls got both" },
  finishReason: { label: "finish reason", title: "finish_reason agrees with what came (tool_calls after a call)" },
  structuredOutput: {
    label: "structured output",
    title: "a json_schema response parses and is valid against its schema",
  },
};

/** A route's latest tool-call run and its verdict, as the site index carries it. */
export const ToolCallsView = z.object({
  runId: z.string(),
  startedAt: z.string(),
  scenario: z.string(),
  suite: z.string(),
  support: z.enum(["supported", "no-tool-support"]),
  shares: z.object(
    Object.fromEntries(TOOL_MEASURES.map((m) => [m, ToolShareSchema])) as Record<ToolMeasure, typeof ToolShareSchema>,
  ),
  /** The verdict on that run; null before it is judged. */
  verdict: ToolCallsVerdictSchema.nullable(),
});
export type ToolCallsView = z.infer<typeof ToolCallsView>;

/** Per target id, its newest run with a tool-call phase (any scenario) and the verdict on it. */
export function toolCallsByTarget(entries: Iterable<RunIndexEntry>): Map<string, ToolCallsView> {
  const newest = new Map<string, RunIndexEntry>();
  for (const e of entries) {
    if (!e.toolCalls) continue;
    const seen = newest.get(e.targetId);
    if (!seen || seen.startedAt < e.startedAt || (seen.startedAt === e.startedAt && seen.key < e.key))
      newest.set(e.targetId, e);
  }
  return new Map(
    [...newest].map(([id, e]) => {
      const brief = e.toolCalls as Brief;
      return [
        id,
        {
          runId: e.runId,
          startedAt: e.startedAt,
          scenario: e.scenario,
          suite: brief.suite,
          support: brief.support,
          shares: brief.shares,
          verdict: e.toolCallsVerdict ?? null,
        },
      ];
    }),
  );
}

/** A share as a percentage, `96 %`; an em dash when nothing was tried. */
export function sharePercent(s: ToolShare | undefined): string {
  return s?.share === null || s?.share === undefined ? "—" : `${fmt(s.share * 100, 0)} %`;
}

/** A share's interval and count, `88-99 %, 58 of 60`; `not tried` when its trials are 0. */
export function shareDetail(s: ToolShare | undefined): string {
  if (!s || s.trials === 0 || s.low === null || s.high === null) return "not tried";
  return `${fmt(s.low * 100, 0)}-${fmt(s.high * 100, 0)} %, ${fmt(s.successes)} of ${fmt(s.trials)}`;
}

/** The leaderboard's tool-calls words: the schema-valid share, its interval in the tooltip, a badge when worse or unsupported. */
export interface ToolCallsCellWords {
  /** The schema-valid share, 0..1, for sorting; null when not measured. */
  value: number | null;
  text: string;
  title: string;
  badge: string | null;
}

export function toolCallsCell(view: ToolCallsView | null): ToolCallsCellWords {
  if (!view) return { value: null, text: "—", title: "tool calls not measured", badge: null };
  if (view.support === "no-tool-support")
    return {
      value: null,
      text: "—",
      title: `no tool support: ${view.verdict?.reason ?? "the route refused requests with tools"}`,
      badge: "no tool support",
    };
  const valid = view.shares.argumentsValid;
  const title = [
    `schema-valid arguments ${sharePercent(valid)} (Wilson 95 %: ${shareDetail(valid)}), ${view.suite}`,
    ...(view.verdict ? [view.verdict.reason] : []),
  ].join("\n");
  return {
    value: valid.share,
    text: sharePercent(valid),
    title,
    badge:
      view.verdict?.verdict !== "worse"
        ? null
        : view.verdict.cause === "stopped_calling"
          ? "tool calls: stopped calling"
          : "tool calls: worse",
  };
}

/** A verdict in the model page's words. */
export function verdictWords(v: ToolCallsVerdict | null): string {
  if (!v) return "not judged yet";
  if (v.cause === "reference") return "reference";
  if (v.cause === "stopped_calling") return "worse: stopped calling tools";
  return {
    same: "no drop detected",
    worse: "worse",
    "no-tool-support": "no tool support",
    "no-reference": "no reference route",
    "too-few-samples": "not comparable",
  }[v.verdict];
}

export { TOOL_MEASURES, type ToolMeasure };
