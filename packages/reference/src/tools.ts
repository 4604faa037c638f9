/**
 * @module Tool calls on the reference server (simulated): which answer a request with `tools` (or a
 * `json_schema` response format) gets, and how it is streamed. The server does not understand the
 * prompt: it looks the request's messages up in the tool-call suite (`tools-v2`, which holds `tools-v1`'s prompts) and answers what the
 * suite expects there (the expected calls, their arguments completed from the tool's schema where the
 * prompt fixes no value; words for a no-call prompt; a JSON object valid against the schema for
 * structured output). A request with tools that is in no suite gets a plausible answer: a call of the
 * first tool offered, its arguments made up from its schema (or words when `tool_choice` is "none").
 * A profile can break answers the way real routes do, each breakage at its seeded rate.
 */
import { type JsonSchema, TOOL_SUITE, type ToolPrompt, type ToolSuite } from "@kneeboard/core/tool-calls";

/**
 * How a server family streams tool calls (each checked against the family's streams):
 * - `openai`: a first delta per call with `index`, `id` (`call_…`), `type`, `function.name` and
 *   `arguments: ""`, then `arguments` in fragments; compact JSON.
 * - `vllm`: a role chunk first; the first delta of a call has `id` (`chatcmpl-tool-…`), `type`, `index`
 *   and `function.name` (no `arguments`); arguments as Python's `json.dumps` writes them (`", "` and
 *   `": "`, non-ASCII as `\uXXXX` escapes, so a fragment can end inside an escape).
 * - `llamacpp`: like `openai`, with `content: null` in every delta and 32-character ids.
 */
export type ToolDialect = "openai" | "vllm" | "llamacpp";

/** The ways a route breaks tool calls, each drawn per answer at its rate (0 to 1). */
export interface ToolBreakageRates {
  /** The first call's arguments cut at 60 % of their text: they no longer parse. */
  truncatedArguments?: number;
  /** The first call's first required argument left out. */
  missingRequired?: number;
  /** The first call's first enum argument given a value outside the enum. */
  enumOutside?: number;
  /** `finish_reason: "stop"` after the calls instead of `tool_calls`. */
  stopAfterCall?: number;
  /** The second of two parallel calls dropped. */
  dropSecondParallel?: number;
}
export type ToolBreakage = keyof ToolBreakageRates;
/** The breakages in the order they are drawn for every answer (so each answer's draws do not depend on the others). */
export const TOOL_BREAKAGES: readonly ToolBreakage[] = [
  "truncatedArguments",
  "missingRequired",
  "enumOutside",
  "stopAfterCall",
  "dropSecondParallel",
];

/** How a model answers tool requests. Default: faithful, `openai`'s stream. */
export interface ToolsProfile {
  dialect?: ToolDialect;
  /** Answer 400 "tools are not supported" to any request with `tools`, as routes without tool support do. */
  refuse?: boolean;
  /** Take the tools and answer every request in words (no call, no JSON), as a route whose chat template drops the tools does. */
  prose?: boolean;
  /** Parallel calls' fragments alternate between the calls once both have started, as some gateways send them. */
  interleave?: boolean;
  /** Send each call's `arguments` whole, as a JSON object rather than a string (a deviation some providers make). */
  argumentsAsObject?: boolean;
  /**
   * Write each SSE event that holds a multi-byte character in two writes, the first ending inside that
   * character's bytes, as a proxy that flushes at byte counts does: a client that decodes each network
   * chunk on its own garbles it.
   */
  splitMultibyte?: boolean;
  breakages?: ToolBreakageRates;
}

/** One call as sent: its arguments are the text streamed (or, with `argumentsAsObject`, the object's JSON). */
export interface PlannedCall {
  id: string;
  name: string;
  arguments: string;
}

/** What one tool request is answered with. */
export interface ToolAnswerPlan {
  /** The suite prompt the messages matched; null when none did. */
  promptId: string | null;
  calls: PlannedCall[];
  content: string | null;
  finishReason: "tool_calls" | "stop";
  /** The breakages applied (drawn and applicable), in `TOOL_BREAKAGES` order. */
  breakages: ToolBreakage[];
}

/** A request the tool path answers: it offers tools, or asks for a JSON schema response. */
export function isToolRequest(body: Record<string, unknown>): boolean {
  const format = body.response_format as { type?: unknown } | undefined;
  return (Array.isArray(body.tools) && body.tools.length > 0) || format?.type === "json_schema";
}

/** The request's messages as `role\ncontent` lines: what is matched against a suite prompt. */
function messagesKey(messages: readonly unknown[]): string {
  return messages
    .map(
      (m) => `${String((m as { role?: unknown }).role ?? "")}\n${String((m as { content?: unknown }).content ?? "")}`,
    )
    .join("\n\n");
}

const SUITE_INDEX = new Map<ToolSuite, Map<string, ToolPrompt>>();

/** The suite prompt whose messages the request's are, exactly; undefined for any other request. */
export function suitePromptOf(body: Record<string, unknown>, suite: ToolSuite = TOOL_SUITE): ToolPrompt | undefined {
  if (!Array.isArray(body.messages)) return undefined;
  let index = SUITE_INDEX.get(suite);
  if (!index) {
    index = new Map(suite.prompts.map((p) => [messagesKey(p.messages), p]));
    SUITE_INDEX.set(suite, index);
  }
  return index.get(messagesKey(body.messages));
}

/**
 * A value valid against a schema, made up: the enum's first value, the minimum, "example", one item
 * (or `minItems`), every property of an object. Enough for the suite's schemas, which is all it must be.
 */
export function exampleOf(schema: JsonSchema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ("const" in schema) return schema.const;
  switch (schema.type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, exampleOf(s)]));
    }
    case "array":
      return Array.from({ length: Math.max(1, Number(schema.minItems ?? 1)) }, () =>
        exampleOf((schema.items ?? {}) as JsonSchema),
      );
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    default:
      return "example";
  }
}

/** The expected values, with every required argument the prompt does not fix made up from the schema. */
function completed(fixed: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, unknown> = { ...fixed };
  for (const key of (schema.required ?? []) as string[])
    if (!(key in out) && properties[key]) out[key] = exampleOf(properties[key]);
  return out;
}

/** The offered tools of a request body, as `{ name, parameters }`. */
function offeredTools(body: Record<string, unknown>): { name: string; parameters: JsonSchema }[] {
  if (!Array.isArray(body.tools)) return [];
  return body.tools.flatMap((t) => {
    const fn = (t as { function?: { name?: unknown; parameters?: unknown } }).function;
    return typeof fn?.name === "string" ? [{ name: fn.name, parameters: (fn.parameters ?? {}) as JsonSchema }] : [];
  });
}

/** The first enum-valued argument's path in `args` under `schema` (depth first), or null. */
function enumPath(args: unknown, schema: JsonSchema): (string | number)[] | null {
  if (Array.isArray(schema.enum) && typeof args === "string") return [];
  if (Array.isArray(args)) {
    const items = (schema.items ?? {}) as JsonSchema;
    for (let i = 0; i < args.length; i++) {
      const p = enumPath(args[i], items);
      if (p) return [i, ...p];
    }
    return null;
  }
  if (args !== null && typeof args === "object") {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [k, v] of Object.entries(args)) {
      const p = properties[k] ? enumPath(v, properties[k]) : null;
      if (p) return [k, ...p];
    }
  }
  return null;
}

/** Words for a prompt that needs no tool (or any other answer in words). */
const WORDS = "I can answer that directly, without calling a tool.";

const ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const idOf = (random: () => number, length: number) =>
  Array.from({ length }, () => ID_CHARS[Math.floor(random() * ID_CHARS.length)]).join("");

function callId(dialect: ToolDialect, random: () => number): string {
  if (dialect === "vllm") return `chatcmpl-tool-${idOf(random, 16).toLowerCase()}`;
  if (dialect === "llamacpp") return idOf(random, 32);
  return `call_${idOf(random, 24)}`;
}

/** Arguments as the dialect writes them: Python's `json.dumps` for vLLM, compact JSON else. */
export function argumentsText(args: unknown, dialect: ToolDialect): string {
  if (dialect !== "vllm") return JSON.stringify(args);
  const dumps = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(dumps).join(", ")}]`;
    if (v !== null && typeof v === "object")
      return `{${Object.entries(v)
        .map(([k, x]) => `${dumps(k)}: ${dumps(x)}`)
        .join(", ")}}`;
    return JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  };
  return dumps(args);
}

/**
 * The answer to one tool request: the suite's expected answer for its prompt (or a plausible one),
 * then the profile's breakages, each drawn from `random` at its rate. Every breakage is drawn for
 * every answer, applied only where it can be (an enum argument to change, a second call to drop).
 */
export function planToolAnswer(
  body: Record<string, unknown>,
  options: { profile?: ToolsProfile; random: () => number; suite?: ToolSuite },
): ToolAnswerPlan {
  const dialect = options.profile?.dialect ?? "openai";
  const prompt = suitePromptOf(body, options.suite);
  const tools = offeredTools(body);
  const schemaOf = (name: string) => tools.find((t) => t.name === name)?.parameters ?? {};
  let calls: { name: string; args: Record<string, unknown> }[] = [];
  let content: string | null = null;
  if (options.profile?.prose) content = WORDS;
  else if (prompt) {
    calls = prompt.expected.map((e) => ({ name: e.name, args: completed(e.arguments, schemaOf(e.name)) }));
    if (prompt.kind === "structured" && prompt.responseSchema)
      content = JSON.stringify(exampleOf(prompt.responseSchema.schema));
    else if (calls.length === 0) content = WORDS;
  } else {
    const format = body.response_format as { json_schema?: { schema?: JsonSchema } } | undefined;
    const first = tools[0];
    if (first && body.tool_choice !== "none")
      calls = [
        { name: first.name, args: exampleOf({ ...first.parameters, type: "object" }) as Record<string, unknown> },
      ];
    else if (format?.json_schema?.schema) content = JSON.stringify(exampleOf(format.json_schema.schema));
    else content = WORDS;
  }
  const drawn = new Set(TOOL_BREAKAGES.filter((b) => options.random() < (options.profile?.breakages?.[b] ?? 0)));
  const applied: ToolBreakage[] = [];
  const first = calls[0];
  if (first && drawn.has("missingRequired")) {
    const required = ((schemaOf(first.name).required ?? []) as string[]).find((k) => k in first.args);
    if (required) {
      const { [required]: _, ...rest } = first.args;
      first.args = rest;
      applied.push("missingRequired");
    }
  }
  if (first && drawn.has("enumOutside")) {
    const path = enumPath(first.args, schemaOf(first.name));
    if (path && path.length > 0) {
      first.args = structuredClone(first.args);
      let at: Record<string | number, unknown> = first.args;
      for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
      at[path.at(-1) as string | number] = "other";
      applied.push("enumOutside");
    }
  }
  const planned: PlannedCall[] = calls.map((c) => ({
    id: callId(dialect, options.random),
    name: c.name,
    arguments: argumentsText(c.args, dialect),
  }));
  // Truncation comes after the other argument breakages, which change the arguments as values.
  const head = planned[0];
  if (head && drawn.has("truncatedArguments")) {
    head.arguments = head.arguments.slice(0, Math.floor(head.arguments.length * 0.6));
    applied.push("truncatedArguments");
  }
  if (planned.length > 0 && drawn.has("stopAfterCall")) applied.push("stopAfterCall");
  if (planned.length >= 2 && drawn.has("dropSecondParallel")) {
    planned.splice(1, 1);
    applied.push("dropSecondParallel");
  }
  return {
    promptId: prompt?.id ?? null,
    calls: planned,
    content,
    finishReason: planned.length > 0 && !drawn.has("stopAfterCall") ? "tool_calls" : "stop",
    breakages: TOOL_BREAKAGES.filter((b) => applied.includes(b)),
  };
}

/** A text cut into fragments of 1 to 7 characters (at any place: inside an escape, a word or a number). */
function fragments(text: string, random: () => number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(random() * 7);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

/**
 * The deltas that stream a planned answer, in order (the finish chunk is the server's): the dialect's
 * first delta of each call, then its arguments in fragments of 1 to 7 characters (or whole, as an
 * object, with `argumentsAsObject` when they parse); calls one after the other, or alternating once
 * both started with `interleave`. Content streams in fragments too.
 */
export function toolDeltas(
  plan: ToolAnswerPlan,
  options: { profile?: ToolsProfile; random: () => number },
): Record<string, unknown>[] {
  const dialect = options.profile?.dialect ?? "openai";
  const nullContent = dialect === "llamacpp" ? { content: null } : {};
  const deltas: Record<string, unknown>[] = [];
  if (dialect === "vllm") deltas.push({ role: "assistant", content: "" });
  const withRole = (delta: Record<string, unknown>) =>
    deltas.length === 0 ? { role: "assistant", content: null, ...delta } : { ...nullContent, ...delta };
  if (plan.content !== null)
    for (const piece of fragments(plan.content, options.random)) deltas.push(withRole({ content: piece }));
  const asObject = (c: PlannedCall): unknown => {
    if (!options.profile?.argumentsAsObject) return null;
    try {
      return JSON.parse(c.arguments);
    } catch {
      return null;
    }
  };
  const starts = plan.calls.map((c, index) => {
    const object = asObject(c);
    const fn =
      object !== null
        ? { name: c.name, arguments: object }
        : dialect === "vllm"
          ? { name: c.name }
          : { name: c.name, arguments: "" };
    return { tool_calls: [{ index, id: c.id, type: "function", function: fn }] };
  });
  const pieces = plan.calls.map((c) =>
    asObject(c) !== null
      ? []
      : fragments(c.arguments, options.random).map((f) => ({
          tool_calls: [{ index: plan.calls.indexOf(c), function: { arguments: f } }],
        })),
  );
  if (options.profile?.interleave && plan.calls.length > 1) {
    for (const s of starts) deltas.push(withRole(s));
    for (let i = 0; pieces.some((p) => i < p.length); i++)
      for (const p of pieces) if (i < p.length) deltas.push(withRole(p[i] as Record<string, unknown>));
  } else
    plan.calls.forEach((_, i) => {
      deltas.push(withRole(starts[i] as Record<string, unknown>));
      for (const p of pieces[i] ?? []) deltas.push(withRole(p));
    });
  return deltas;
}

/** The non-streamed message of a planned answer. */
export function toolMessage(plan: ToolAnswerPlan): Record<string, unknown> {
  return {
    role: "assistant",
    content: plan.content,
    ...(plan.calls.length > 0
      ? {
          tool_calls: plan.calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
          })),
        }
      : {}),
  };
}

/** What a stream of deltas amounts to: each call (by index) and the content, as a client assembles them. */
export function assembleDeltas(deltas: readonly Record<string, unknown>[]): {
  calls: PlannedCall[];
  content: string | null;
  argumentsAsObject: boolean;
} {
  const calls: PlannedCall[] = [];
  let content: string | null = null;
  let argumentsAsObject = false;
  for (const d of deltas) {
    if (typeof d.content === "string" && d.content !== "") content = (content ?? "") + d.content;
    for (const t of (d.tool_calls ?? []) as {
      index: number;
      id?: string;
      function?: { name?: string; arguments?: unknown };
    }[]) {
      const call = calls[t.index] ?? { id: "", name: "", arguments: "" };
      calls[t.index] = call;
      if (t.id) call.id = t.id;
      if (t.function?.name) call.name = t.function.name;
      const args = t.function?.arguments;
      if (typeof args === "string") call.arguments += args;
      else if (args !== undefined) {
        call.arguments = JSON.stringify(args);
        argumentsAsObject = true;
      }
    }
  }
  return { calls: calls.filter(Boolean), content, argumentsAsObject };
}

/** An SSE event's bytes cut inside its first multi-byte character (after its lead byte); one piece when it has none. */
export function splitInsideCharacter(event: string): Buffer[] {
  const bytes = Buffer.from(event);
  const lead = bytes.findIndex((b) => b >= 0xc0);
  return lead < 0 ? [bytes] : [bytes.subarray(0, lead + 1), bytes.subarray(lead + 1)];
}
