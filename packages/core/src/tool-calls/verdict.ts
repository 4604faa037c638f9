/**
 * @module Does this route work for agents as well as its reference? (docs/methodology.md#tool-calls).
 * Each route of a model is compared with the model's reference route prompt by prompt: on every
 * measure that applies to a prompt, the prompt is met when every answer to it met the measure
 * (`promptResults`), and `everyMeasure` when it met them all. Per measure, the prompts the reference
 * met and the route did not (`lost`) against those the route met and the reference did not
 * (`gained`) go to an exact one-sided sign test (exact McNemar): the prompt, not the sample, is the
 * unit. The p-values of every measure of all the model's tested routes are corrected together (Holm),
 * and a route is `worse` when any adjusted p-value is below `TOOL_CALLS_ALPHA`. Beside it, the trigger
 * F1 and the exact call F1 against the reference (./f1.ts). Pure: run documents in, verdicts out.
 */
import { z } from "zod";
import { modelKeyOf } from "../config/index.ts";
import { exactSignTestPValue, holm } from "../stats/index.ts";
import { exactCallF1, type F1Answer, triggerF1 } from "./f1.ts";
import { measuresOf, promptResults, type ScoredAnswer, TOOL_MEASURES } from "./measures.ts";
import { TOOL_SUITES, type ToolPrompt, type ToolSuite } from "./suite.ts";

/** A route is worse when an adjusted p-value is below this: the test's false-alarm rate per model. */
export const TOOL_CALLS_ALPHA = 0.01;
/** The measures the verdict tests: each share an agent needs, and all of them at once per prompt. */
export const VERDICT_MEASURES = ["everyMeasure", ...TOOL_MEASURES] as const;
export const VerdictMeasure = z.enum(VERDICT_MEASURES);
export type VerdictMeasure = z.infer<typeof VerdictMeasure>;

/** The verdict on one route: `same` means no drop detected at this suite's size, not proof of equality. */
export const ToolCallsVerdictValue = z.enum(["same", "worse", "no-tool-support", "no-reference", "too-few-samples"]);
export type ToolCallsVerdictValue = z.infer<typeof ToolCallsVerdictValue>;

/**
 * Why the verdict is what it is, as a code: `reference` (the route is the reference), `no_difference`,
 * `stopped_calling` (worse, and among the lower measures is calling when a call is needed: the route
 * stops calling tools), `lower` (worse on other measures), `no_tool_support` (the route refused tools
 * consistently), `no_reference` (no route of the model is marked reference), `no_reference_run` (the
 * reference has no tool-call run), `reference_no_tool_support` (the reference refused tools),
 * `no_tool_calls` (this route has no tool-call run), `suite` (the two ran different suites, or one
 * this version does not know), `unanswered` (a phase cut short left prompts without answers).
 * `arguments_valid`, `right_tool`, `arguments_valid_and_right_tool` and `too_few_samples` are the
 * causes of verdicts recorded before every measure was tested (still read).
 */
export const ToolCallsCause = z.enum([
  "reference",
  "no_difference",
  "stopped_calling",
  "lower",
  "no_tool_support",
  "no_reference",
  "no_reference_run",
  "reference_no_tool_support",
  "no_tool_calls",
  "suite",
  "unanswered",
  "arguments_valid",
  "right_tool",
  "arguments_valid_and_right_tool",
  "too_few_samples",
]);
export type ToolCallsCause = z.infer<typeof ToolCallsCause>;

/** One measure of a route against its reference, over the prompts it applies to. */
export const PairedMeasure = z.object({
  measure: VerdictMeasure,
  /** Prompts the measure applies to, answered on both sides. */
  prompts: z.number().int().nonnegative(),
  /** Prompts met by the route, and by the reference. */
  route: z.number().int().nonnegative(),
  reference: z.number().int().nonnegative(),
  /** Prompts the reference met and the route did not, and the other way round. */
  lost: z.number().int().nonnegative(),
  gained: z.number().int().nonnegative(),
  /** The exact sign test's one-sided p-value, before and after Holm's correction. */
  rawPValue: z.number().min(0).max(1),
  pValue: z.number().min(0).max(1),
});
export type PairedMeasure = z.infer<typeof PairedMeasure>;

/** Verdicts recorded before the exact call F1 was named apart from the trigger F1 called it `f1`. */
function upgradeVerdict(input: unknown): unknown {
  if (input === null || typeof input !== "object" || "exactCallF1" in input) return input;
  const { f1, pValues: _, rawPValues: __, ...rest } = input as Record<string, unknown>;
  return { ...rest, exactCallF1: f1 ?? null };
}

/** A route's tool-call verdict, as the run index carries it per run (`toolCallsVerdict`). */
export const ToolCallsVerdict = z.preprocess(
  upgradeVerdict,
  z.object({
    /** The target id of the model's reference route; null when the model has none. */
    reference: z.string().nullable(),
    verdict: ToolCallsVerdictValue,
    /** The reason as a code (`ToolCallsCause`). */
    cause: ToolCallsCause,
    /** The verdict in one sentence for people. */
    reason: z.string(),
    /** The measures found lower than the reference's (adjusted p-value below alpha), in `VERDICT_MEASURES` order. */
    lower: z.array(VerdictMeasure).default([]),
    /** Every measure's paired counts and p-values; [] when not tested. */
    measures: z.array(PairedMeasure).default([]),
    /** Trigger F1 (Kimi Vendor Verifier's `tool_call_f1`) against the reference's answers; null when not compared (the reference itself, no reference, no calls on either side). */
    triggerF1: z.number().min(0).max(1).nullable().default(null),
    /** Exact call F1 of (name, arguments) against the reference's answers; null when not compared. */
    exactCallF1: z.number().min(0).max(1).nullable().default(null),
    /** The run whose tool calls were judged, and the reference's; null when there was none. */
    runId: z.string().nullable(),
    referenceRunId: z.string().nullable(),
  }),
);
export type ToolCallsVerdict = z.infer<typeof ToolCallsVerdict>;

/** What the verdict reads of a run's tool-call phase: a run document's `toolCalls` fits. */
export interface ToolCallsRecord {
  suite: string;
  support: "supported" | "no-tool-support";
  supportDetail?: string | null;
  answers: readonly (F1Answer & ScoredAnswer)[];
  /** Why the phase ended before every answer was asked; null or absent when it finished. */
  stopped?: string | null;
}

/** What the verdict reads of a target's latest run with a tool-call phase: a `RunDocument` fits. */
export interface ToolCallsRun {
  targetId: string;
  model: string;
  modelKey?: string | null;
  /** The target is its model's reference route. */
  reference?: boolean;
  runId?: string;
  /** The run's tool-call phase; absent or null when it had none. */
  toolCalls?: ToolCallsRecord | null;
}

export interface ToolCallsVerdictOptions {
  /** Default `TOOL_CALLS_ALPHA`. */
  alpha?: number;
}

/** Each verdict measure in words, for reasons, the terminal and alerts. */
export const VERDICT_MEASURE_WORDS: Record<VerdictMeasure, string> = {
  everyMeasure: "every measure",
  callWhenNeeded: "call when needed (trigger)",
  noCallWhenNone: "no call when none",
  rightTool: "right tools",
  argumentsParse: "arguments parse",
  argumentsValid: "schema-valid arguments",
  argumentValues: "argument values",
  parallelBoth: "both parallel calls",
  finishReason: "finish reason",
  structuredOutput: "structured output",
};

const formatP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toPrecision(2));

/** A measure's paired counts in words: "right tools 12/15 prompts against 15/15 (3 lost, 0 gained), p = 0.5". */
export function pairedWords(m: PairedMeasure): string {
  return `${VERDICT_MEASURE_WORDS[m.measure]} ${m.route}/${m.prompts} prompts against ${m.reference}/${m.prompts} (${m.lost} lost, ${m.gained} gained), p = ${formatP(m.pValue)}`;
}

type Tested = ToolCallsRun & { toolCalls: ToolCallsRecord };
type Counts = Omit<PairedMeasure, "rawPValue" | "pValue">;

/** A run's answers by prompt id. */
function byPrompt(answers: readonly ScoredAnswer[] & readonly F1Answer[]): Map<string, ScoredAnswer[]> {
  const out = new Map<string, ScoredAnswer[]>();
  for (const a of answers as readonly (F1Answer & ScoredAnswer)[])
    out.set(a.promptId, [...(out.get(a.promptId) ?? []), a]);
  return out;
}

/** A prompt's results with `everyMeasure` added: met when every measure that applies was. */
function withEvery(prompt: ToolPrompt, answers: readonly ScoredAnswer[]): Partial<Record<VerdictMeasure, boolean>> {
  const results = promptResults(prompt, answers);
  if (Object.keys(results).length === 0) return {};
  return { ...results, everyMeasure: measuresOf(prompt).every((m) => results[m] === true) };
}

/**
 * The paired counts of every measure over the suite's prompts; or the number of prompts left without
 * an answer on either side. A route whose phase stopped because every request it sent failed has
 * its unasked prompts counted as failed: a dead route is the worst route, not an untested one.
 */
function pairedCounts(suite: ToolSuite, mine: ToolCallsRecord, theirs: ToolCallsRecord): Counts[] | number {
  const routeAnswers = byPrompt(mine.answers);
  const referenceAnswers = byPrompt(theirs.answers);
  const dead = mine.answers.length > 0 && mine.answers.every((a) => a.outcome !== "ok");
  const counts = new Map<VerdictMeasure, Counts>(
    VERDICT_MEASURES.map((m) => [m, { measure: m, prompts: 0, route: 0, reference: 0, lost: 0, gained: 0 }]),
  );
  let unanswered = 0;
  for (const prompt of suite.prompts) {
    const reference = withEvery(prompt, referenceAnswers.get(prompt.id) ?? []);
    const asked = routeAnswers.get(prompt.id) ?? [];
    const route = asked.length === 0 && dead ? null : withEvery(prompt, asked);
    if (Object.keys(reference).length === 0 || (route !== null && Object.keys(route).length === 0)) {
      unanswered++;
      continue;
    }
    for (const m of VERDICT_MEASURES) {
      const theirs = reference[m];
      if (theirs === undefined) continue;
      const ours = route === null ? false : route[m] === true;
      const c = counts.get(m) as Counts;
      c.prompts++;
      c.route += ours ? 1 : 0;
      c.reference += theirs ? 1 : 0;
      c.lost += theirs && !ours ? 1 : 0;
      c.gained += ours && !theirs ? 1 : 0;
    }
  }
  return unanswered > 0 ? unanswered : [...counts.values()].filter((c) => c.prompts > 0);
}

/**
 * The tool-call verdict of every target, from the latest run with a tool-call phase of each (any mix
 * of models: they are grouped by model key). Per model, the route whose run is marked `reference` (the
 * first by id, should several be) is the reference; each other route is tested against it, and the
 * p-values of every measure of the model's tested routes are corrected together (Holm). Targets
 * without such a run can be given with no `toolCalls`. Returns a verdict per target id.
 */
export function toolCallsVerdicts(
  runs: readonly ToolCallsRun[],
  options: ToolCallsVerdictOptions = {},
): Record<string, ToolCallsVerdict> {
  const alpha = options.alpha ?? TOOL_CALLS_ALPHA;
  const models = new Map<string, ToolCallsRun[]>();
  for (const run of runs) {
    const key = modelKeyOf(run);
    models.set(key, [...(models.get(key) ?? []), run]);
  }
  const out: Record<string, ToolCallsVerdict> = {};
  for (const [modelKey, routes] of models) Object.assign(out, modelVerdicts(modelKey, routes, alpha));
  return out;
}

type Why = { verdict: ToolCallsVerdictValue; cause: ToolCallsCause; reason: string };

/** Why a route cannot be tested against the reference, or its paired counts when it can. */
function untestable(run: ToolCallsRun, reference: ToolCallsRun | undefined, modelKey: string): Why | Counts[] {
  const mine = run.toolCalls;
  if (!mine)
    return { verdict: "too-few-samples", cause: "no_tool_calls", reason: "this route has no run with tool calls yet" };
  if (mine.support === "no-tool-support")
    return {
      verdict: "no-tool-support",
      cause: "no_tool_support",
      reason: `the route refused tools${mine.supportDetail ? ` (${mine.supportDetail})` : ""}`,
    };
  if (run === reference)
    return {
      verdict: "same",
      cause: "reference",
      reason: "the model's reference route: its other routes' tool calls are compared with it",
    };
  if (!reference)
    return {
      verdict: "no-reference",
      cause: "no_reference",
      reason: `no route of ${modelKey} is marked as its reference (targets[].reference)`,
    };
  const theirs = reference.toolCalls;
  if (!theirs)
    return {
      verdict: "no-reference",
      cause: "no_reference_run",
      reason: `the reference route ${reference.targetId} has no run with tool calls yet`,
    };
  if (theirs.support === "no-tool-support")
    return {
      verdict: "no-reference",
      cause: "reference_no_tool_support",
      reason: `the reference route ${reference.targetId} refused tools: nothing to compare with`,
    };
  const suite = TOOL_SUITES.get(mine.suite);
  if (mine.suite !== theirs.suite || !suite)
    return {
      verdict: "too-few-samples",
      cause: "suite",
      reason: suite
        ? `this route ran suite ${mine.suite}, the reference ${theirs.suite}: nothing to compare`
        : `suite ${mine.suite} is not one this version knows`,
    };
  const counts = pairedCounts(suite, mine, theirs);
  if (typeof counts === "number")
    return {
      verdict: "too-few-samples",
      cause: "unanswered",
      reason: `${counts} of the ${suite.prompts.length} prompts of ${suite.id} have no answer on one side (a phase cut short): the test pairs every prompt`,
    };
  return counts;
}

/** The verdicts of one model's routes. */
function modelVerdicts(
  modelKey: string,
  routes: readonly ToolCallsRun[],
  alpha: number,
): Record<string, ToolCallsVerdict> {
  const reference = [...routes].filter((r) => r.reference).sort((a, b) => a.targetId.localeCompare(b.targetId))[0];
  const out: Record<string, ToolCallsVerdict> = {};
  const tested: { run: Tested; counts: Counts[] }[] = [];
  for (const run of routes) {
    const why = untestable(run, reference, modelKey);
    const base = {
      reference: reference?.targetId ?? null,
      lower: [],
      measures: [],
      triggerF1: null,
      exactCallF1: null,
      runId: run.toolCalls ? (run.runId ?? null) : null,
      referenceRunId: reference?.toolCalls ? (reference.runId ?? null) : null,
    };
    if (Array.isArray(why)) tested.push({ run: run as Tested, counts: why });
    else out[run.targetId] = { ...base, ...why };
  }
  // One family: every measure of every tested route.
  const raw = tested.flatMap((t) => t.counts.map((c) => exactSignTestPValue(c.lost, c.gained)));
  const adjusted = holm(raw);
  let at = 0;
  for (const { run, counts } of tested) {
    const measures = counts.map((c) => ({ ...c, rawPValue: raw[at] as number, pValue: adjusted[at++] as number }));
    const lower = measures.filter((m) => m.pValue < alpha);
    const theirs = (reference as Tested).toolCalls;
    const family = ` (exact sign test over prompts, Holm over ${raw.length} tests)`;
    const worst = [...measures].sort((a, b) => a.pValue - b.pValue).slice(0, 2);
    out[run.targetId] = {
      reference: (reference as Tested).targetId,
      lower: lower.map((m) => m.measure),
      measures,
      triggerF1: triggerF1(run.toolCalls.answers, theirs.answers),
      exactCallF1: exactCallF1(run.toolCalls.answers, theirs.answers),
      runId: run.runId ?? null,
      referenceRunId: (reference as Tested).runId ?? null,
      ...(lower.length === 0
        ? {
            verdict: "same" as const,
            cause: "no_difference" as const,
            reason: `no drop detected on ${measures[0]?.prompts ?? 0} prompts: ${worst.map(pairedWords).join("; ")}${family}`,
          }
        : {
            verdict: "worse" as const,
            cause: lower.some((m) => m.measure === "callWhenNeeded")
              ? ("stopped_calling" as const)
              : ("lower" as const),
            reason: `lower than the reference's: ${lower.map(pairedWords).join("; ")}${family}`,
          }),
    };
  }
  return out;
}
