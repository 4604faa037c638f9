/**
 * @module The tool-call phase in the terminal (docs/methodology.md#tool-calls): a run's shares, and
 * each verdict against the model's reference route with its cause and its paired counts. `run`
 * prints both after a sweep, `check` the verdicts it recorded.
 */
import { modelKeyOf } from "@kneeboard/core/config";
import type { RunDocument } from "@kneeboard/core/run";
import type { RunIndex, RunIndexEntry } from "@kneeboard/core/run-index";
import { readRun, type Store } from "@kneeboard/core/store";
import {
  pairedWords,
  TOOL_MEASURES,
  type ToolCallsVerdict,
  type ToolMeasure,
  toolCallsVerdicts,
  VERDICT_MEASURE_WORDS,
} from "@kneeboard/core/tool-calls";

type Shares = NonNullable<RunIndexEntry["toolCalls"]>["shares"];

/** Every share in one line: `call when needed (trigger) 300/300, no call when none 100/100, ...`. */
export function sharesLine(shares: Shares): string {
  return TOOL_MEASURES.filter((m: ToolMeasure) => shares[m].trials > 0)
    .map((m: ToolMeasure) => `${VERDICT_MEASURE_WORDS[m]} ${shares[m].successes}/${shares[m].trials}`)
    .join(", ");
}

/** A run's tool-call phase: its suite, requests and failures, and every share; "" when it had none. */
export function toolCallsReport(doc: RunDocument): string {
  const t = doc.toolCalls;
  if (!t) return "";
  const head = `tool calls (${t.suite}, ${t.requests} requests, ${t.failed} failed${t.stopped ? `, stopped: ${t.stopped}` : ""})`;
  if (t.support === "no-tool-support") return `${head}: no tool support (${t.supportDetail ?? "refused"})\n`;
  return `${head}: ${sharesLine(t.shares)}\n`;
}

/** A verdict in words: `worse against ref (cause lower): <reason>; trigger F1 1.00, exact call F1 0.71`. */
export function verdictLine(v: ToolCallsVerdict): string {
  const f1 = (x: number | null) => (x === null ? "-" : x.toFixed(2));
  const against = v.reference && v.cause !== "reference" ? ` against ${v.reference}` : "";
  const f1s = v.measures.length > 0 ? `; trigger F1 ${f1(v.triggerF1)}, exact call F1 ${f1(v.exactCallF1)}` : "";
  return `${v.verdict}${against} (cause ${v.cause}): ${v.reason}${f1s}`;
}

/** The lower measures' paired counts, one a line, indented: what made a verdict `worse`. */
export function lowerLines(v: ToolCallsVerdict, indent = "    "): string[] {
  return v.measures.filter((m) => v.lower.includes(m.measure)).map((m) => `${indent}${pairedWords(m)}`);
}

/**
 * The tool-call verdict of each of `docs` (this `run`'s runs with a tool-call phase), as `check` will
 * record it: against the latest tool-call run, started by then, of every route of its model in the
 * store. One line a run, with the lower measures under a `worse` one.
 */
export async function verdictsReport(store: Store, index: RunIndex, docs: readonly RunDocument[]): Promise<string> {
  const judged = docs.filter((d) => d.toolCalls);
  if (judged.length === 0) return "";
  const entries = (await index.entries()).filter((e) => e.toolCalls);
  const lines = ["tool-call verdicts (`kneeboard check` records them):"];
  for (const doc of judged) {
    const latest = new Map<string, RunIndexEntry>();
    for (const e of entries)
      if (modelKeyOf(e) === modelKeyOf(doc) && e.startedAt <= doc.startedAt) {
        const seen = latest.get(e.targetId);
        if (!seen || seen.startedAt <= e.startedAt) latest.set(e.targetId, e);
      }
    const runs = await Promise.all([...latest.values()].map((e) => readRun(store, e.key)));
    const v = toolCallsVerdicts(runs)[doc.targetId];
    if (!v) continue;
    const hint =
      v.cause === "no_reference_run" ? " (a run is judged against the reference's runs started before it)" : "";
    lines.push(`  ${doc.targetId} [${doc.scenario}]: ${verdictLine(v)}${hint}`, ...lowerLines(v));
  }
  return `${lines.join("\n")}\n`;
}
