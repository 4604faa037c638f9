/**
 * @module A synthetic tool-call phase (issue 45) for tests and fixtures: every prompt of the suite
 * answered `samplesPerPrompt` times the way a faithful route answers (the expected calls, their
 * arguments as JSON text), with a share of the calls broken (arguments cut short: they neither parse
 * nor validate) or naming another offered tool, drawn from `random`; or a route that refused tools.
 * The shares are counted from the answers, so an F1 or a verdict computed from them agrees.
 */
import type { ToolCallAnswer, ToolCallShare, ToolCalls } from "../run/index.ts";
import { TOOL_MEASURES, type ToolMeasure, wilson } from "../tool-calls/measures.ts";
import { TOOLS_V1, type ToolPrompt, type ToolSuite } from "../tool-calls/suite.ts";

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

type Measure = ToolMeasure;
const MEASURES = TOOL_MEASURES;

/** One answer to a prompt and the measures it counts toward (true: a success). */
function answer(
  prompt: ToolPrompt,
  sample: number,
  o: Required<Omit<SyntheticToolCallsOptions, "suite" | "support">>,
): { answer: ToolCallAnswer; scores: Partial<Record<Measure, boolean>> } {
  const base = { promptId: prompt.id, sample, outcome: "ok" as const, httpStatus: 200, argumentsAsObject: false };
  if (prompt.kind === "no-call")
    return {
      answer: { ...base, finishReason: "stop", calls: [], content: "No tool is needed for that." },
      scores: { noCallWhenNone: true, finishReason: true },
    };
  if (prompt.kind === "structured")
    return {
      answer: { ...base, finishReason: "stop", calls: [], content: "{}" },
      scores: { structuredOutput: true, finishReason: true },
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
  const right = !(wrong && other);
  return {
    answer: { ...base, finishReason: "tool_calls", calls, content: null },
    scores: {
      callWhenNeeded: true,
      rightTool: right,
      argumentsParse: !broken,
      argumentsValid: !broken && right,
      argumentValues: !broken && right,
      finishReason: true,
      ...(prompt.kind === "parallel" ? { parallelBoth: true } : {}),
    },
  };
}

export function syntheticToolCalls(options: SyntheticToolCallsOptions): ToolCalls {
  const suite = options.suite ?? TOOLS_V1;
  const samplesPerPrompt = options.samplesPerPrompt ?? 4;
  const common = { suite: suite.id, samplesPerPrompt, concurrency: 4, temperature: 0, maxTokens: 256, stopped: null };
  const counts = new Map<Measure, { successes: number; trials: number }>(
    MEASURES.map((m) => [m, { successes: 0, trials: 0 }]),
  );
  if (options.support === "no-tool-support")
    return {
      ...common,
      support: "no-tool-support",
      supportDetail: "HTTP 400: tools not supported",
      requests: 1,
      failed: 1,
      shares: Object.fromEntries(MEASURES.map((m) => [m, wilsonShare(0, 0)])) as ToolCalls["shares"],
      answers: [],
    };
  const o = {
    random: options.random,
    broken: options.broken ?? 0,
    wrongTool: options.wrongTool ?? 0,
    samplesPerPrompt,
  };
  const answers: ToolCallAnswer[] = [];
  for (const prompt of suite.prompts)
    for (let sample = 0; sample < samplesPerPrompt; sample++) {
      const a = answer(prompt, sample, o);
      answers.push(a.answer);
      for (const [m, ok] of Object.entries(a.scores) as [Measure, boolean][]) {
        const c = counts.get(m) as { successes: number; trials: number };
        c.trials++;
        if (ok) c.successes++;
      }
    }
  const shares = Object.fromEntries(
    [...counts].map(([m, c]) => [m, wilsonShare(c.successes, c.trials)]),
  ) as ToolCalls["shares"];
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
