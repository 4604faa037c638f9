/**
 * @module A synthetic tool-call phase (issue 45) for tests and fixtures: every prompt of the suite
 * answered `samplesPerPrompt` times the way a faithful route answers (the expected calls, their
 * arguments as JSON text), with a share of the calls broken (arguments cut short: they neither parse
 * nor validate) or naming another offered tool, drawn from `random`; or a route that refused tools.
 * The shares are the phase's own scoring of the answers, so an F1 or a verdict computed from them agrees.
 */
import type { ToolCallAnswer, ToolCallShare, ToolCalls } from "../run/index.ts";
import { scoreAnswer, sharesOf, wilson } from "../tool-calls/measures.ts";
import { type JsonSchema, TOOLS_V1, type ToolPrompt, type ToolSuite } from "../tool-calls/suite.ts";

export interface SyntheticToolCallsOptions {
  random: () => number;
  /** Default `supported`; a route without support records no answers and no shares. */
  support?: ToolCalls["support"];
  /** Share of answers with calls whose arguments are cut short (default 0). */
  broken?: number;
  /** Share of answers to a one-call prompt that name another offered tool (default 0). */
  wrongTool?: number;
  samplesPerPrompt?: number;
  suite?: ToolSuite;
}

/** A share and its Wilson 95 % interval, as the phase records it. */
export const wilsonShare = (successes: number, trials: number): ToolCallShare => wilson(successes, trials);

/** A made-up value valid against a suite's strict structured-output schema. */
function exampleOf(schema: JsonSchema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === "object")
    return Object.fromEntries(
      Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([k, v]) => [k, exampleOf(v)]),
    );
  if (schema.type === "array") return [exampleOf((schema.items ?? {}) as JsonSchema)];
  if (schema.type === "integer" || schema.type === "number") return 1;
  return "x";
}

/** One answer to a prompt. */
function answer(
  prompt: ToolPrompt,
  sample: number,
  o: Required<Omit<SyntheticToolCallsOptions, "suite" | "support">>,
): ToolCallAnswer {
  const base = { promptId: prompt.id, sample, outcome: "ok" as const, httpStatus: 200, argumentsAsObject: false };
  if (prompt.kind === "no-call")
    return { ...base, finishReason: "stop", calls: [], content: "No tool is needed for that." };
  if (prompt.kind === "structured")
    return {
      ...base,
      finishReason: "stop",
      calls: [],
      content: JSON.stringify(exampleOf(prompt.responseSchema?.schema ?? {})),
    };
  const broken = o.random() < o.broken;
  const wrong = prompt.kind === "one-call" && o.random() < o.wrongTool;
  const other = prompt.tools.find((t) => t.name !== prompt.expected[0]?.name)?.name ?? null;
  const calls = prompt.expected.map((e, index) => {
    const text = JSON.stringify(e.arguments);
    return {
      index,
      id: `call_${prompt.id}_${sample}_${index}`,
      name: wrong && other ? other : e.name,
      arguments: broken ? text.slice(0, Math.max(1, text.length - 3)) : text,
    };
  });
  return { ...base, finishReason: "tool_calls", calls, content: null };
}

export function syntheticToolCalls(options: SyntheticToolCallsOptions): ToolCalls {
  const suite = options.suite ?? TOOLS_V1;
  const samplesPerPrompt = options.samplesPerPrompt ?? 4;
  const common = { suite: suite.id, samplesPerPrompt, concurrency: 4, temperature: 0, maxTokens: 256, stopped: null };
  if (options.support === "no-tool-support")
    return {
      ...common,
      support: "no-tool-support",
      supportDetail: "HTTP 400: tools not supported",
      requests: 1,
      failed: 1,
      shares: sharesOf([]),
      answers: [],
    };
  const o = {
    random: options.random,
    broken: options.broken ?? 0,
    wrongTool: options.wrongTool ?? 0,
    samplesPerPrompt,
  };
  const answers: ToolCallAnswer[] = [];
  const scores: ReturnType<typeof scoreAnswer>[] = [];
  for (const prompt of suite.prompts)
    for (let sample = 0; sample < samplesPerPrompt; sample++) {
      const a = answer(prompt, sample, o);
      answers.push(a);
      scores.push(scoreAnswer(prompt, a));
    }
  const shares = sharesOf(scores);
  return {
    ...common,
    support: "supported",
    supportDetail: null,
    requests: answers.length,
    failed: 0,
    shares,
    answers,
  };
}
