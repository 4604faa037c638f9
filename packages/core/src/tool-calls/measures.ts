/**
 * @module The nine tool-call measures (docs/methodology.md#tool-calls): which answers each counts, what
 * a success is, and the share with its Wilson interval. Schemas are checked with Ajv, not by hand.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import type { ExpectedCall, JsonSchema, ToolPrompt } from "./suite.ts";

/** The measures, in the order tables show them. */
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

/** Whether each of `calls` can be paired with its own expected call, one to one, so that `fits` each pair. */
function matchOneToOne<C>(
  calls: readonly C[],
  expected: readonly ExpectedCall[],
  fits: (c: C, e: ExpectedCall) => boolean,
) {
  const used = new Array<boolean>(expected.length).fill(false);
  const place = (i: number): boolean => {
    if (i === calls.length) return true;
    for (let j = 0; j < expected.length; j++) {
      if (used[j] || !fits(calls[i] as C, expected[j] as ExpectedCall)) continue;
      used[j] = true;
      if (place(i + 1)) return true;
      used[j] = false;
    }
    return false;
  };
  return calls.length <= expected.length && place(0);
}

/**
 * One answer scored on every measure (docs/methodology.md#tool-calls says which answers each counts).
 * Only an `ok` answer counts toward any measure: a failed request is data, not a wrong answer.
 */
export function scoreAnswer(prompt: ToolPrompt, answer: ScoredAnswer): Record<ToolMeasure, Trial> {
  const score = Object.fromEntries(TOOL_MEASURES.map((m) => [m, NOT_COUNTED])) as Record<ToolMeasure, Trial>;
  if (answer.outcome !== "ok") return score;
  const { calls } = answer;
  const called = calls.length > 0;
  const needsCalls = prompt.kind === "one-call" || prompt.kind === "parallel";
  const expectedNames = new Set(prompt.expected.map((e) => e.name));
  const args = calls.map((c) => parsed(c.arguments));

  if (needsCalls) score.callWhenNeeded = counted(called);
  if (prompt.kind === "no-call") score.noCallWhenNone = counted(!called);
  if (needsCalls && called) {
    const names = new Set(calls.map((c) => c.name));
    score.rightTool = counted(
      names.size === expectedNames.size && [...names].every((n) => n !== null && expectedNames.has(n)),
    );
  }
  if (called) {
    score.argumentsParse = counted(args.every(isObject));
    score.argumentsValid = counted(
      calls.every((c, i) => {
        const tool = prompt.tools.find((t) => t.name === c.name);
        return tool !== undefined && args[i] !== undefined && validAgainst(tool.parameters, args[i]);
      }),
    );
  }
  const toExpected = calls.flatMap((c, i) =>
    c.name !== null && expectedNames.has(c.name) ? [{ name: c.name, args: args[i] }] : [],
  );
  if (needsCalls && toExpected.length > 0)
    score.argumentValues = counted(
      matchOneToOne(toExpected, prompt.expected, (c, e) => c.name === e.name && holdsValues(e.arguments, c.args)),
    );
  if (prompt.kind === "parallel") {
    // Both present: the expected names, counted with repeats, are all among the calls' names.
    const names = calls.map((c) => c.name);
    score.parallelBoth = counted(
      prompt.expected.every((e) => {
        const at = names.indexOf(e.name);
        if (at >= 0) names.splice(at, 1);
        return at >= 0;
      }),
    );
  }
  score.finishReason = counted(
    called ? answer.finishReason === "tool_calls" : answer.finishReason === "stop" || answer.finishReason === "length",
  );
  if (prompt.kind === "structured" && prompt.responseSchema) {
    const value = parsed(answer.content);
    score.structuredOutput = counted(value !== undefined && validAgainst(prompt.responseSchema.schema, value));
  }
  return score;
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
