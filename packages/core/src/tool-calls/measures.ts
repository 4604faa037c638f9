/**
 * @module The nine tool-call measures (docs/methodology.md#tool-calls): which answers each counts, what
 * a success is, and the share with its Wilson interval. Schemas are checked with Ajv, not by hand.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import type { ExpectedCall, JsonSchema, ToolPrompt } from "./suite.ts";

/** The measures, in the order tables show them. `callWhenNeeded` is trigger agreement with the suite: a call when one is needed. */
export const TOOL_MEASURES = [
  "callWhenNeeded",
  "noCallWhenNone",
  "rightTool",
  "argumentsParse",
  "argumentsValid",
  "argumentValues",
  "parallelBoth",
  "finishReason",
  "structuredOutput",
] as const;
export type ToolMeasure = (typeof TOOL_MEASURES)[number];

/** What the measures read of an answer: the run document's `toolCalls.answers[]` has these fields. */
export interface ScoredAnswer {
  outcome: string;
  finishReason: string | null;
  calls: readonly { name: string | null; arguments: string }[];
  content: string | null;
}

/** One answer on one measure: whether the measure counts it, and whether it met it. */
export interface Trial {
  trials: 0 | 1;
  successes: 0 | 1;
}

/** A share of answers with its Wilson 95 % interval; `share`, `low`, `high` null without trials. */
export interface Share {
  successes: number;
  trials: number;
  share: number | null;
  low: number | null;
  high: number | null;
}

export type ToolShares = Record<ToolMeasure, Share>;

const NOT_COUNTED: Trial = { trials: 0, successes: 0 };
const counted = (success: boolean): Trial => ({ trials: 1, successes: success ? 1 : 0 });

// One validator for every schema: strict (a typo in a suite's schema throws, never passes silently).
const ajv = new Ajv2020({ allErrors: false, strict: true });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** Whether `value` is valid against `schema` (compiled once per schema object). */
export function validAgainst(schema: JsonSchema, value: unknown): boolean {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value) === true;
}

/** The JSON a text holds, or `undefined` when it does not parse. */
function parsed(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Whether `actual` holds every value `fixed` fixes: numbers by value, strings exactly, objects by the
 * fixed keys (more keys are allowed), arrays element by element in order and of the same length.
 */
export function holdsValues(fixed: unknown, actual: unknown): boolean {
  if (Array.isArray(fixed))
    return Array.isArray(actual) && actual.length === fixed.length && fixed.every((f, i) => holdsValues(f, actual[i]));
  if (isObject(fixed))
    return isObject(actual) && Object.entries(fixed).every(([k, f]) => k in actual && holdsValues(f, actual[k]));
  return fixed === actual;
}

/** Whether the expected calls can each be paired with a call of its own, one to one, that `fits` it. */
function matchOneToOne<C>(
  calls: readonly C[],
  expected: readonly ExpectedCall[],
  fits: (c: C, e: ExpectedCall) => boolean,
) {
  const used = new Array<boolean>(calls.length).fill(false);
  const place = (j: number): boolean => {
    if (j === expected.length) return true;
    for (let i = 0; i < calls.length; i++) {
      if (used[i] || !fits(calls[i] as C, expected[j] as ExpectedCall)) continue;
      used[i] = true;
      if (place(j + 1)) return true;
      used[i] = false;
    }
    return false;
  };
  return place(0);
}

/** Whether `names` hold every one of `wanted`, counted with repeats (two calls of one tool are two). */
function holdsNames(names: readonly (string | null)[], wanted: readonly string[]): boolean {
  const left = [...names];
  return wanted.every((n) => {
    const at = left.indexOf(n);
    if (at >= 0) left.splice(at, 1);
    return at >= 0;
  });
}

/**
 * The measures that apply to a prompt, by its kind: every answer to it counts in each of them, whatever
 * the answer did (docs/methodology.md#tool-calls). A prompt that needs calls is judged on the call and
 * its arguments, so an answer in words fails the argument measures rather than dropping out of them.
 */
export function measuresOf(prompt: ToolPrompt): readonly ToolMeasure[] {
  switch (prompt.kind) {
    case "one-call":
      return ["callWhenNeeded", "rightTool", "argumentsParse", "argumentsValid", "argumentValues", "finishReason"];
    case "parallel":
      return [
        "callWhenNeeded",
        "rightTool",
        "argumentsParse",
        "argumentsValid",
        "argumentValues",
        "parallelBoth",
        "finishReason",
      ];
    case "no-call":
      return ["noCallWhenNone", "finishReason"];
    case "structured":
      return ["structuredOutput", "finishReason"];
  }
}

/** Whether an answer met each measure, before knowing which apply. */
function successes(prompt: ToolPrompt, answer: ScoredAnswer): Record<ToolMeasure, boolean> {
  const { calls } = answer;
  const called = calls.length > 0;
  const args = calls.map((c) => parsed(c.arguments));
  const names = calls.map((c) => c.name);
  const expected = prompt.expected.map((e) => e.name);
  return {
    callWhenNeeded: called,
    noCallWhenNone: !called,
    // As a multiset: a dropped or a doubled call is the wrong tools, even of one tool.
    rightTool: names.length === expected.length && holdsNames(names, expected),
    argumentsParse: called && args.every(isObject),
    argumentsValid:
      called &&
      calls.every((c, i) => {
        const tool = prompt.tools.find((t) => t.name === c.name);
        return tool !== undefined && args[i] !== undefined && validAgainst(tool.parameters, args[i]);
      }),
    argumentValues:
      called &&
      matchOneToOne(
        calls.map((c, i) => ({ name: c.name, args: args[i] })),
        prompt.expected,
        (c, e) => c.name === e.name && holdsValues(e.arguments, c.args),
      ),
    // Both present: the expected names, counted with repeats, are all among the calls' names.
    parallelBoth: holdsNames(names, expected),
    finishReason: called
      ? answer.finishReason === "tool_calls"
      : answer.finishReason === "stop" || answer.finishReason === "length",
    structuredOutput: (() => {
      const value = parsed(answer.content);
      return (
        prompt.responseSchema !== undefined && value !== undefined && validAgainst(prompt.responseSchema.schema, value)
      );
    })(),
  };
}

/**
 * One answer scored on every measure: counted in each measure that applies to its prompt
 * (`measuresOf`), a success where it met it. A failed request (any outcome but `ok`) fails every
 * measure that applies: an agent that gets no answer gets no call.
 */
export function scoreAnswer(prompt: ToolPrompt, answer: ScoredAnswer): Record<ToolMeasure, Trial> {
  const score = Object.fromEntries(TOOL_MEASURES.map((m) => [m, NOT_COUNTED])) as Record<ToolMeasure, Trial>;
  const met = answer.outcome === "ok" ? successes(prompt, answer) : null;
  for (const m of measuresOf(prompt)) score[m] = counted(met?.[m] ?? false);
  return score;
}

/**
 * A prompt's result on each measure that applies to it (`measuresOf`): met when every one of its
 * answers met it. The prompt is the unit the verdict tests: at temperature 0 its samples repeat one
 * behaviour, so four failures of one prompt are one failure, and a prompt an agent cannot rely on
 * every time fails. Empty when the prompt has no answer.
 */
export function promptResults(
  prompt: ToolPrompt,
  answers: readonly ScoredAnswer[],
): Partial<Record<ToolMeasure, boolean>> {
  if (answers.length === 0) return {};
  const scores = answers.map((a) => scoreAnswer(prompt, a));
  return Object.fromEntries(measuresOf(prompt).map((m) => [m, scores.every((s) => s[m].successes === 1)]));
}

/**
 * Wilson's score interval of `successes` of `trials` (z 1.96: 95 %), clamped to [0, 1]; nulls with no
 * trial. Sound at the small counts and the shares near 0 or 1 this phase gives, where the normal
 * approximation's interval leaves [0, 1].
 */
export function wilson(successes: number, trials: number, z = 1.96): Share {
  if (trials === 0) return { successes, trials, share: null, low: null, high: null };
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const center = (p + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return {
    successes,
    trials,
    share: p,
    low: successes === 0 ? 0 : Math.max(0, center - half),
    high: successes === trials ? 1 : Math.min(1, center + half),
  };
}

/** Every measure's share over the scored answers. */
export function sharesOf(scores: readonly Record<ToolMeasure, Trial>[]): ToolShares {
  return Object.fromEntries(
    TOOL_MEASURES.map((m) => {
      let successes = 0;
      let trials = 0;
      for (const s of scores) {
        successes += s[m].successes;
        trials += s[m].trials;
      }
      return [m, wilson(successes, trials)];
    }),
  ) as ToolShares;
}
