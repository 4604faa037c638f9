/**
 * @module Tool-call F1 against the reference route, the measure of Kimi's Vendor Verifier: a call of
 * the route matches a call of the reference when their names are equal and their arguments, parsed
 * as JSON, are equal (key order aside). Over the prompts both answered, every ok answer of the route
 * is compared with every ok answer of the reference to the same prompt (so neither sample numbering
 * nor the sample counts matter): matched calls are true positives, the route's other calls false
 * positives, the reference's other calls false negatives; F1 = 2 TP / (2 TP + FP + FN). Pure.
 */

/** What F1 reads of one answer: a run document's `toolCalls.answers[]` fits. */
export interface F1Answer {
  promptId: string;
  /** Only `ok` answers are compared: a failed request says nothing about the route's calls. */
  outcome: string;
  calls: readonly { name: string | null; arguments: string }[];
}

/** The counts behind an F1, summed over every (route answer, reference answer) pair of a prompt. */
export interface F1Counts {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  /** Prompts both sides answered ok at least once. */
  prompts: number;
}

/** JSON with object keys sorted at every depth: equal values, equal texts. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/** A call's identity for matching: name and canonical arguments; null when it cannot match anything (no name, or arguments that do not parse). */
export function callKey(call: { name: string | null; arguments: string }): string | null {
  if (!call.name) return null;
  try {
    return `${call.name}\u0000${canonical(JSON.parse(call.arguments))}`;
  } catch {
    return null;
  }
}

/** How many calls of two answers match, each call matched at most once. */
function matched(route: readonly (string | null)[], reference: readonly (string | null)[]): number {
  const left = new Map<string, number>();
  for (const k of reference) if (k !== null) left.set(k, (left.get(k) ?? 0) + 1);
  let n = 0;
  for (const k of route) {
    const count = k === null ? 0 : (left.get(k) ?? 0);
    if (count > 0) {
      left.set(k as string, count - 1);
      n++;
    }
  }
  return n;
}

/** The ok answers' call keys, by prompt. */
function keysByPrompt(answers: readonly F1Answer[]): Map<string, (string | null)[][]> {
  const out = new Map<string, (string | null)[][]>();
  for (const a of answers) {
    if (a.outcome !== "ok") continue;
    const list = out.get(a.promptId) ?? [];
    list.push(a.calls.map(callKey));
    out.set(a.promptId, list);
  }
  return out;
}

/** The counts of the route's answers against the reference's (see the module). */
export function toolCallF1Counts(route: readonly F1Answer[], reference: readonly F1Answer[]): F1Counts {
  const mine = keysByPrompt(route);
  const theirs = keysByPrompt(reference);
  const counts: F1Counts = { truePositives: 0, falsePositives: 0, falseNegatives: 0, prompts: 0 };
  for (const [promptId, routeAnswers] of mine) {
    const referenceAnswers = theirs.get(promptId);
    if (!referenceAnswers) continue;
    counts.prompts++;
    for (const r of routeAnswers)
      for (const s of referenceAnswers) {
        const m = matched(r, s);
        counts.truePositives += m;
        counts.falsePositives += r.length - m;
        counts.falseNegatives += s.length - m;
      }
  }
  return counts;
}

/** F1 from its counts; null when neither side made a call on the prompts both answered (nothing to agree on). */
export function f1Of(counts: F1Counts): number | null {
  const denominator = 2 * counts.truePositives + counts.falsePositives + counts.falseNegatives;
  return denominator === 0 ? null : (2 * counts.truePositives) / denominator;
}

/** The tool-call F1 of the route's answers against the reference's; null when there is nothing to compare. */
export function toolCallF1(route: readonly F1Answer[], reference: readonly F1Answer[]): number | null {
  return f1Of(toolCallF1Counts(route, reference));
}
