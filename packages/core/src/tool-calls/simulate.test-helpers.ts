/**
 * @module Simulated tool-call phases for the verdict's tests (simulated output: no route answered).
 * Per prompt a route either answers right on every sample or fails it on every sample, as a route at
 * temperature 0 does: the prompt, not the sample, is the unit of behaviour. A failing prompt fails
 * the way its kind invites (`broken`): arguments cut short where a call is needed, a call where none
 * is, JSON cut short; or as told (`words`: prose to every request).
 */
import type { ToolCallAnswer } from "../run/index.ts";
import type { JsonSchema, ToolPrompt, ToolSuite } from "./suite.ts";
import type { ToolCallsRecord, ToolCallsRun } from "./verdict.ts";

/** A made-up value valid against the suites' strict structured-output schemas. */
function exampleOf(schema: JsonSchema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === "object")
    return Object.fromEntries(
      Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([k, s]) => [k, exampleOf(s)]),
    );
  if (schema.type === "array") return [exampleOf((schema.items ?? {}) as JsonSchema)];
  if (schema.type === "integer" || schema.type === "number") return 1;
  return "x";
}

/** How an answer goes: right, or broken in one of the ways routes break. */
export type Behaviour = "right" | "words" | "truncated" | "dropSecond" | "failed" | "broken";

/** One answer to a prompt, behaving as told. `broken` picks the failure the prompt's kind invites. */
export function answerTo(prompt: ToolPrompt, sample: number, behaviour: Behaviour): ToolCallAnswer {
  const base = { promptId: prompt.id, sample, httpStatus: 200, argumentsAsObject: false };
  const calls = prompt.expected.map((e, index) => ({
    index,
    id: `call_${index}`,
    name: e.name,
    arguments: JSON.stringify(e.arguments),
  }));
  // Broken: arguments cut short where calls are needed, a call where none is, JSON cut short.
  const how: Behaviour = behaviour === "broken" ? "truncated" : behaviour;
  if (how === "failed")
    return { ...base, outcome: "http_error", httpStatus: 500, finishReason: null, calls: [], content: null };
  if (prompt.kind === "structured") {
    const text = JSON.stringify(exampleOf(prompt.responseSchema?.schema ?? {}));
    return {
      ...base,
      outcome: "ok",
      finishReason: "stop",
      calls: [],
      content: how === "right" ? text : text.slice(0, -2),
    };
  }
  if (prompt.kind === "no-call")
    return how === "right" || how === "words"
      ? { ...base, outcome: "ok", finishReason: "stop", calls: [], content: "Done." }
      : {
          ...base,
          outcome: "ok",
          finishReason: "tool_calls",
          calls: [{ index: 0, id: "call_0", name: prompt.tools[0]?.name ?? "", arguments: "{}" }],
          content: null,
        };
  if (how === "words")
    return { ...base, outcome: "ok", finishReason: "stop", calls: [], content: "I would rather say it in words." };
  if (how === "truncated") {
    const [first, ...rest] = calls;
    const cut = first
      ? [{ ...first, arguments: first.arguments.slice(0, Math.floor(first.arguments.length * 0.6)) }]
      : [];
    return { ...base, outcome: "ok", finishReason: "tool_calls", calls: [...cut, ...rest], content: null };
  }
  if (how === "dropSecond")
    return { ...base, outcome: "ok", finishReason: "tool_calls", calls: calls.slice(0, 1), content: null };
  return { ...base, outcome: "ok", finishReason: "tool_calls", calls, content: null };
}

/** A phase over `suite`: each prompt's behaviour on every one of its `samples` answers. */
export function phaseOf(
  suite: ToolSuite,
  behaviourOf: (prompt: ToolPrompt, index: number) => Behaviour,
  samples = 4,
): ToolCallsRecord {
  const answers: ToolCallAnswer[] = [];
  for (let sample = 0; sample < samples; sample++)
    suite.prompts.forEach((p, i) => {
      answers.push(answerTo(p, sample, behaviourOf(p, i)));
    });
  return { suite: suite.id, support: "supported", answers, stopped: null };
}

export const referenceRun = (toolCalls: ToolCallsRecord | null): ToolCallsRun => ({
  targetId: "ref",
  model: "m",
  reference: true,
  runId: "r0",
  toolCalls,
});
export const routeRun = (targetId: string, toolCalls: ToolCallsRecord | null): ToolCallsRun => ({
  targetId,
  model: "m",
  runId: `run-${targetId}`,
  toolCalls,
});

/**
 * The prompts a reference fails (each with probability 1 - `success`), and a route's: the route keeps
 * the reference's result on each prompt with probability 1 - `redraw`, else draws its own at the
 * same rate (`redraw` 1: independent of the reference, the hardest case for false alarms), then
 * fails `extra` more prompts, drawn among those it met. Sets of prompt indices.
 */
export function clusteredFailures(
  random: () => number,
  prompts: number,
  o: { success: number; redraw: number; extra: number },
): { reference: Set<number>; route: Set<number> } {
  const reference = new Set<number>();
  const route = new Set<number>();
  for (let i = 0; i < prompts; i++) {
    const theirs = random() >= o.success;
    if (theirs) reference.add(i);
    const ours = random() < o.redraw ? random() >= o.success : theirs;
    if (ours) route.add(i);
  }
  const met = Array.from({ length: prompts }, (_, i) => i).filter((i) => !route.has(i));
  for (let k = 0; k < o.extra && met.length > 0; k++)
    route.add(met.splice(Math.floor(random() * met.length), 1)[0] as number);
  return { reference, route };
}
