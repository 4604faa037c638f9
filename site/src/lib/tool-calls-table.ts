/**
 * @module The model page's tool-call table: one row per route with a tool-call run, the reference's
 * first and marked, each measure's share with its Wilson 95 % interval and count, the F1 of its calls
 * against the reference's, and the verdict with its reason.
 */
import { fmt } from "./format.ts";
import type { TargetView } from "./site-data.ts";
import type { Table } from "./table.ts";
import { num, text } from "./table.ts";
import {
  shareDetail,
  sharePercent,
  TOOL_MEASURE_WORDS,
  TOOL_MEASURES,
  type ToolCallsView,
  verdictWords,
} from "./tool-calls.ts";

const isReference = (t: TargetView) =>
  t.toolCalls?.verdict?.cause === "reference" || (t.latest.reference === true && t.toolCalls?.verdict === null);

/** The table, or null when none of the routes has a tool-call run. */
export function toolCallsTable(routes: readonly TargetView[], href: (id: string) => string): Table | null {
  const measured = routes.filter((t) => t.toolCalls !== null);
  if (measured.length === 0) return null;
  const ordered = [...measured.filter(isReference), ...measured.filter((t) => !isReference(t))];
  const simulated = ordered.some((t) => t.simulated);
  return {
    id: "tool-calls",
    label: "Tool calls: every measure per route, the reference route first",
    caption: `Tool calls: each route's latest tool-call run (${[...new Set(ordered.map((t) => (t.toolCalls as ToolCallsView).suite))].join(", ")}), each share with its Wilson 95 % interval and count. The reference route's row comes first. Worse: on some measure (or on all of them at once) the route fails prompts its reference meets, more often than chance allows (an exact sign test over prompts, a prompt met when every answer to it met the measure; Holm across the measures and the model's routes, α 0.01); no drop detected is not proof of equality, only that none showed at this suite's size. Trigger F1 (Kimi Vendor Verifier's): whether the route called a tool when the reference did; exact call F1: the route's calls (name and arguments) against the reference's (see the methodology).${simulated ? " Routes marked simulated are reference targets (local engines, not providers): their figures show how kneeboard measures, not how any provider behaves." : ""}`,
    columns: [
      { head: "route", class: "text" },
      { head: "verdict", class: "text" },
      {
        head: "trigger F1",
        title:
          "trigger F1 (Kimi Vendor Verifier's): did the route call a tool when the reference did, answer by answer",
      },
      {
        head: "call F1",
        title:
          "exact call F1: the route's calls (name and arguments) against the reference's calls to the same prompts",
      },
      ...TOOL_MEASURES.map((m) => ({ head: TOOL_MEASURE_WORDS[m].label, title: TOOL_MEASURE_WORDS[m].title })),
      { head: "why", class: "text" },
    ],
    rows: ordered.map((t) => {
      const tc = t.toolCalls as ToolCallsView;
      const reference = isReference(t);
      const unsupported = tc.support === "no-tool-support";
      const verdict = unsupported ? "no tool support" : verdictWords(tc.verdict);
      const bad = unsupported || tc.verdict?.verdict === "worse";
      return {
        data: {
          "data-target": t.id,
          "data-verdict": unsupported ? "no-tool-support" : (tc.verdict?.verdict ?? "none"),
          ...(reference ? { "data-reference": "true" } : {}),
        },
        cells: [
          text(t.label, {
            href: href(t.id),
            ...(t.simulated ? { note: "simulated", noteClass: "badge sim" } : {}),
          }),
          text(reference ? "reference" : verdict, bad ? { class: "bad" } : {}),
          num(f1Text(tc.verdict?.triggerF1)),
          num(f1Text(tc.verdict?.exactCallF1)),
          ...TOOL_MEASURES.map((m) =>
            unsupported
              ? num("—")
              : num(sharePercent(tc.shares[m]), {
                  note: shareDetail(tc.shares[m]),
                  title: TOOL_MEASURE_WORDS[m].title,
                }),
          ),
          text(tc.verdict?.reason ?? (unsupported ? "the route refused requests with tools" : "not judged yet")),
        ],
      };
    }),
  };
}

const f1Text = (f1: number | null | undefined) => (f1 === null || f1 === undefined ? "—" : fmt(f1, 2));
