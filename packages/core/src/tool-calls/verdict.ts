/**
 * @module Does this route work for agents as well as its reference? (docs/methodology.md, tool
 * calls): each route of a model is compared with the model's reference route on two shares of its
 * tool-call phase, `argumentsValid` (arguments valid against the tool's schema) and `rightTool`, by a
 * one-sided two-proportion z-test each (the route's share below the reference's); the p-values of
 * both measures of all the model's tested routes are corrected together (Holm), and a route is
 * `worse` when either adjusted p-value is below `TOOL_CALLS_ALPHA`. Beside it, the tool-call F1 of
 * the route's calls against the reference's (./f1.ts). Pure: run documents in, verdicts out.
 */
import { z } from "zod";
import { modelKeyOf } from "../config/index.ts";
import { holm, oneSidedTwoProportionPValue, type Proportion } from "../stats/index.ts";
import { type F1Answer, toolCallF1 } from "./f1.ts";

/** A route is worse when an adjusted p-value is below this: the test's false-alarm rate per model. */
export const TOOL_CALLS_ALPHA = 0.01;
/** Trials each side needs in each tested measure: below it the normal approximation and the power are too poor to say. */
export const TOOL_CALLS_MIN_TRIALS = 40;
/** The measures the verdict tests, by their names in the run document's `toolCalls.shares`. */
export const VERDICT_MEASURES = ["argumentsValid", "rightTool"] as const;
export type VerdictMeasure = (typeof VERDICT_MEASURES)[number];

/** The verdict on one route: `same` means no drop detected at this sample size, not proof of equality. */
export const ToolCallsVerdictValue = z.enum(["same", "worse", "no-tool-support", "no-reference", "too-few-samples"]);
export type ToolCallsVerdictValue = z.infer<typeof ToolCallsVerdictValue>;

/**
 * Why the verdict is what it is, as a code: `reference` (the route is the reference), `no_difference`,
 * `arguments_valid`, `right_tool`, `arguments_valid_and_right_tool` (the measures found lower),
 * `no_tool_support` (the route refused tools), `no_reference` (no route of the model is marked
 * reference), `no_reference_run` (the reference has no tool-call run), `reference_no_tool_support`
 * (the reference refused tools), `no_tool_calls` (this route has no tool-call run), `suite` (the two
 * ran different suites), `too_few_samples`.
 */
export const ToolCallsCause = z.enum([
  "reference",
  "no_difference",
  "arguments_valid",
  "right_tool",
  "arguments_valid_and_right_tool",
  "no_tool_support",
  "no_reference",
  "no_reference_run",
  "reference_no_tool_support",
  "no_tool_calls",
  "suite",
  "too_few_samples",
]);
export type ToolCallsCause = z.infer<typeof ToolCallsCause>;

const PValues = z.object({
  argumentsValid: z.number().min(0).max(1).nullable(),
  rightTool: z.number().min(0).max(1).nullable(),
});

/** A route's tool-call verdict, as the run index carries it per run (`toolCallsVerdict`). */
export const ToolCallsVerdict = z.object({
  /** The target id of the model's reference route; null when the model has none. */
  reference: z.string().nullable(),
  verdict: ToolCallsVerdictValue,
  /** The reason as a code (`ToolCallsCause`). */
  cause: ToolCallsCause,
  /** The verdict in one sentence for people. */
  reason: z.string(),
  /** Tool-call F1 of (name, arguments) against the reference's answers to the same prompts; null when not compared (the reference itself, no reference, no calls on either side). */
  f1: z.number().min(0).max(1).nullable(),
  /** The tests' p-values after Holm's correction over both measures of the model's tested routes; null when not tested. */
  pValues: PValues,
  /** The p-values before the correction; null when not tested. */
  rawPValues: PValues,
  /** The run whose tool calls were judged, and the reference's; null when there was none. */
  runId: z.string().nullable(),
  referenceRunId: z.string().nullable(),
});
export type ToolCallsVerdict = z.infer<typeof ToolCallsVerdict>;

/** What the verdict reads of a run's tool-call phase: a run document's `toolCalls` fits. */
export interface ToolCallsRecord {
  suite: string;
  support: "supported" | "no-tool-support";
  supportDetail?: string | null;
  shares: Record<VerdictMeasure, Proportion>;
  answers: readonly F1Answer[];
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
  /** Default `TOOL_CALLS_MIN_TRIALS`. */
  minTrials?: number;
}

const MEASURE_WORDS: Record<VerdictMeasure, string> = {
  argumentsValid: "schema-valid share",
  rightTool: "right-tool share",
};

const percent = (p: Proportion) => `${((100 * p.successes) / p.trials).toFixed(0)} % (${p.successes}/${p.trials})`;
const formatP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toPrecision(2));
const NO_P = { argumentsValid: null, rightTool: null };

type Tested = ToolCallsRun & { toolCalls: ToolCallsRecord };

/**
 * The tool-call verdict of every target, from the latest run with a tool-call phase of each (any mix
 * of models: they are grouped by model key). Per model, the route whose run is marked `reference` (the
 * first by id, should several be) is the reference; each other route is tested against it, and the
 * p-values of both measures of the model's tested routes are corrected together (Holm). Targets
 * without such a run can be given with no `toolCalls`. Returns a verdict per target id.
 */
export function toolCallsVerdicts(
  runs: readonly ToolCallsRun[],
  options: ToolCallsVerdictOptions = {},
): Record<string, ToolCallsVerdict> {
  const o: Required<ToolCallsVerdictOptions> = {
    alpha: options.alpha ?? TOOL_CALLS_ALPHA,
    minTrials: Math.max(1, options.minTrials ?? TOOL_CALLS_MIN_TRIALS),
  };
  const models = new Map<string, ToolCallsRun[]>();
  for (const run of runs) {
    const key = modelKeyOf(run);
    models.set(key, [...(models.get(key) ?? []), run]);
  }
  const out: Record<string, ToolCallsVerdict> = {};
  for (const [modelKey, routes] of models) Object.assign(out, modelVerdicts(modelKey, routes, o));
  return out;
}

/** Why a route cannot be tested against the reference, or null when it can. */
function untestable(
  run: ToolCallsRun,
  reference: ToolCallsRun | undefined,
  modelKey: string,
  minTrials: number,
): { verdict: ToolCallsVerdictValue; cause: ToolCallsCause; reason: string } | null {
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
  if (mine.suite !== theirs.suite)
    return {
      verdict: "too-few-samples",
      cause: "suite",
      reason: `this route ran suite ${mine.suite}, the reference ${theirs.suite}: nothing to compare`,
    };
  const short = VERDICT_MEASURES.find((m) => mine.shares[m].trials < minTrials || theirs.shares[m].trials < minTrials);
  if (short)
    return {
      verdict: "too-few-samples",
      cause: "too_few_samples",
      reason: `the ${MEASURE_WORDS[short]} counts ${mine.shares[short].trials} trials here and ${theirs.shares[short].trials} at the reference; the test needs ${minTrials} a side`,
    };
  return null;
}

/** The verdicts of one model's routes. */
function modelVerdicts(
  modelKey: string,
  routes: readonly ToolCallsRun[],
  o: Required<ToolCallsVerdictOptions>,
): Record<string, ToolCallsVerdict> {
  const reference = [...routes].filter((r) => r.reference).sort((a, b) => a.targetId.localeCompare(b.targetId))[0];
  const comparable = (run: ToolCallsRun) =>
    run !== reference &&
    run.toolCalls?.support === "supported" &&
    reference?.toolCalls?.support === "supported" &&
    run.toolCalls.suite === reference.toolCalls.suite;
  const base = (run: ToolCallsRun) => ({
    reference: reference?.targetId ?? null,
    f1: comparable(run) ? toolCallF1((run as Tested).toolCalls.answers, (reference as Tested).toolCalls.answers) : null,
    pValues: NO_P,
    rawPValues: NO_P,
    runId: run.toolCalls ? (run.runId ?? null) : null,
    referenceRunId: reference?.toolCalls ? (reference.runId ?? null) : null,
  });
  const out: Record<string, ToolCallsVerdict> = {};
  const tested: { run: Tested; raw: Record<VerdictMeasure, number> }[] = [];
  for (const run of routes) {
    const why = untestable(run, reference, modelKey, o.minTrials);
    if (why) {
      out[run.targetId] = { ...base(run), ...why };
      continue;
    }
    const mine = (run as Tested).toolCalls;
    const theirs = (reference as Tested).toolCalls;
    tested.push({
      run: run as Tested,
      raw: {
        argumentsValid: oneSidedTwoProportionPValue(mine.shares.argumentsValid, theirs.shares.argumentsValid),
        rightTool: oneSidedTwoProportionPValue(mine.shares.rightTool, theirs.shares.rightTool),
      },
    });
  }
  // One family: both measures of every tested route.
  const adjusted = holm(tested.flatMap((t) => VERDICT_MEASURES.map((m) => t.raw[m])));
  const tests = tested.length * VERDICT_MEASURES.length;
  tested.forEach(({ run, raw }, i) => {
    const pValues = {
      argumentsValid: adjusted[i * 2] as number,
      rightTool: adjusted[i * 2 + 1] as number,
    };
    const lower = VERDICT_MEASURES.filter((m) => pValues[m] < o.alpha);
    const theirs = (reference as Tested).toolCalls;
    const said = (m: VerdictMeasure) =>
      `${MEASURE_WORDS[m]} ${percent(run.toolCalls.shares[m])} against the reference's ${percent(theirs.shares[m])}, p = ${formatP(pValues[m])}`;
    const family = ` (Holm over ${tests} tests)`;
    const common = { ...base(run), pValues, rawPValues: raw };
    if (lower.length === 0)
      out[run.targetId] = {
        ...common,
        verdict: "same",
        cause: "no_difference",
        reason: `no drop detected at this sample size: ${VERDICT_MEASURES.map(said).join("; ")}${family}`,
      };
    else
      out[run.targetId] = {
        ...common,
        verdict: "worse",
        cause:
          lower.length === 2
            ? "arguments_valid_and_right_tool"
            : lower[0] === "argumentsValid"
              ? "arguments_valid"
              : "right_tool",
        reason: `lower than the reference's: ${lower.map(said).join("; ")}${family}`,
      };
  });
  return out;
}
