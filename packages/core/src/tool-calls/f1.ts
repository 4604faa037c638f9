/**
 * @module The two F1s of a route's tool calls against its reference route's (docs/methodology.md#tool-calls).
 * Both pair every answer of the route with every ok answer of the reference to the same prompt (so
 * neither sample numbering nor the sample counts matter); a route's failed request counts as an
 * answer without calls (an agent got none), a reference's failed request is left out (it says nothing
 * of what the model does). F1 = 2 TP / (2 TP + FP + FN).
 * - Trigger F1, Kimi Vendor Verifier's `tool_call_f1`: per pair of answers, did each side call a tool
 *   at all. Both called: a true positive; only the route: a false positive; only the reference: a
 *   false negative.
 * - Exact call F1: per call, a call of the route matches a call of the reference when their names are
 *   equal and their arguments, parsed as JSON, are equal (key order aside); matched calls are true
 *   positives, the route's other calls false positives, the reference's other calls false negatives.
 * Pure.
 */

/** What F1 reads of one answer: a run document's `toolCalls.answers[]` fits. */
export interface F1Answer {
  promptId: string;
  /** A route's answer that is not `ok` counts as one without calls; a reference's is left out. */
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

/** The answers' call keys, by prompt: a failed answer's as none, or left out with `okOnly`. */
function keysByPrompt(answers: readonly F1Answer[], okOnly: boolean): Map<string, (string | null)[][]> {
  const out = new Map<string, (string | null)[][]>();
  for (const a of answers) {
    if (a.outcome !== "ok" && okOnly) continue;
    const list = out.get(a.promptId) ?? [];
    list.push(a.outcome === "ok" ? a.calls.map(callKey) : []);
    out.set(a.promptId, list);
  }
  return out;
}

/** Every (route answer, reference answer) pair of a prompt both answered, and how many prompts those are. */
function pairsOf(
  route: readonly F1Answer[],
  reference: readonly F1Answer[],
): { pairs: [(string | null)[], (string | null)[]][]; prompts: number } {
  const mine = keysByPrompt(route, false);
  const theirs = keysByPrompt(reference, true);
  const pairs: [(string | null)[], (string | null)[]][] = [];
  let prompts = 0;
  for (const [promptId, routeAnswers] of mine) {
    const referenceAnswers = theirs.get(promptId);
    if (!referenceAnswers) continue;
    prompts++;
    for (const r of routeAnswers) for (const s of referenceAnswers) pairs.push([r, s]);
  }
  return { pairs, prompts };
}

/** The exact call F1's counts of the route's answers against the reference's (see the module). */
export function exactCallF1Counts(route: readonly F1Answer[], reference: readonly F1Answer[]): F1Counts {
  const { pairs, prompts } = pairsOf(route, reference);
  const counts: F1Counts = { truePositives: 0, falsePositives: 0, falseNegatives: 0, prompts };
  for (const [r, s] of pairs) {
    const m = matched(r, s);
    counts.truePositives += m;
    counts.falsePositives += r.length - m;
    counts.falseNegatives += s.length - m;
  }
  return counts;
}

/** The trigger F1's counts (Kimi Vendor Verifier's): per pair of answers, whether each side called at all. */
export function triggerF1Counts(route: readonly F1Answer[], reference: readonly F1Answer[]): F1Counts {
  const { pairs, prompts } = pairsOf(route, reference);
  const counts: F1Counts = { truePositives: 0, falsePositives: 0, falseNegatives: 0, prompts };
  for (const [r, s] of pairs) {
    if (r.length > 0 && s.length > 0) counts.truePositives++;
    else if (r.length > 0) counts.falsePositives++;
    else if (s.length > 0) counts.falseNegatives++;
  }
  return counts;
}

/** F1 from its counts; null when neither side made a call on the prompts both answered (nothing to agree on). */
export function f1Of(counts: F1Counts): number | null {
  const denominator = 2 * counts.truePositives + counts.falsePositives + counts.falseNegatives;
  return denominator === 0 ? null : (2 * counts.truePositives) / denominator;
}

/** The exact call F1 of the route's answers against the reference's; null when there is nothing to compare. */
export function exactCallF1(route: readonly F1Answer[], reference: readonly F1Answer[]): number | null {
  return f1Of(exactCallF1Counts(route, reference));
}

/** The trigger F1 (Kimi Vendor Verifier's) of the route's answers against the reference's; null when neither side called. */
export function triggerF1(route: readonly F1Answer[], reference: readonly F1Answer[]): number | null {
  return f1Of(triggerF1Counts(route, reference));
}
