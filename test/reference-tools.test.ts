/**
 * @module The reference server's tool calls over real HTTP (simulated answers, looked up in the
 * suite): the faithful routes' streams, assembled here by `index` from their fragments, are the
 * suite's expected calls in each server family's dialect; the sloppy route's breakages show in its
 * streams exactly as often as its own log says it made them, and that at its profile's rates.
 */
import { mapBounded } from "@kneeboard/core/pool";
import {
  type JsonSchema,
  TOOLS_V1,
  type ToolCallsRun,
  type ToolPrompt,
  toolCallsVerdicts,
} from "@kneeboard/core/tool-calls";
import {
  type ReferenceServer,
  SLOPPY_TOOL_BREAKAGES,
  SMALL_PRICED,
  SMALL_SLOPPY,
  type StreamProfile,
  splitInsideCharacter,
  startReferenceServer,
  type ToolAnswerRecord,
  type ToolBreakage,
} from "@kneeboard/reference";
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FAST = { stepBaseMs: 1, stepPerSeqMs: 0.05, slots: 16, prefillBaseMs: 1, prefillPerTokenMs: 0 };
const faithful = (tools: StreamProfile["tools"]): StreamProfile => ({ ...FAST, tools });
let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({
    seed: 7,
    models: [
      { kind: "model", id: "ref-small-priced", profile: SMALL_PRICED },
      { kind: "model", id: "ref-small-sloppy", profile: SMALL_SLOPPY },
      { kind: "model", id: "vllm", profile: faithful({ dialect: "vllm" }) },
      { kind: "model", id: "llamacpp", profile: faithful({ dialect: "llamacpp" }) },
      {
        kind: "model",
        id: "gateway",
        profile: faithful({ dialect: "openai", interleave: true, argumentsAsObject: true }),
      },
      { kind: "model", id: "interleaving", profile: faithful({ dialect: "openai", interleave: true }) },
      { kind: "model", id: "splitting", profile: faithful({ dialect: "openai", splitMultibyte: true }) },
      { kind: "model", id: "no-tools", profile: faithful({ refuse: true }) },
      {
        kind: "model",
        id: "failing",
        profile: { ...faithful({}), midStream: { every: 2, afterTokens: 3, fault: "error" } },
      },
    ],
  });
});
afterAll(() => server.close());

/** The request the tool-call phase sends for a prompt. */
function requestOf(model: string, prompt: ToolPrompt): Record<string, unknown> {
  return {
    model,
    messages: prompt.messages,
    stream: true,
    temperature: 0,
    max_tokens: 256,
    ...(prompt.tools.length > 0
      ? { tools: prompt.tools.map((f) => ({ type: "function", function: f })), tool_choice: "auto" }
      : {}),
    ...(prompt.responseSchema
      ? { response_format: { type: "json_schema", json_schema: { ...prompt.responseSchema, strict: true } } }
      : {}),
  };
}

interface ToolDelta {
  index: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: unknown };
}

/** One streamed answer as a client reads it: every tool-call delta, the calls assembled by index, the finish reason. */
interface Streamed {
  status: number;
  deltas: ToolDelta[];
  calls: { id: string; name: string; arguments: string }[];
  content: string | null;
  finishReason: string | null;
}

async function ask(model: string, prompt: ToolPrompt): Promise<Streamed> {
  const res = await fetch(`${server.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(requestOf(model, prompt)),
  });
  const text = await res.text();
  const out: Streamed = { status: res.status, deltas: [], calls: [], content: null, finishReason: null };
  if (res.status !== 200) return out;
  for (const event of text.split("\n\n")) {
    if (!event.startsWith("data: ") || event === "data: [DONE]") continue;
    const choice = JSON.parse(event.slice(6)).choices[0];
    if (!choice) continue;
    if (choice.finish_reason) out.finishReason = choice.finish_reason;
    if (choice.delta.content) out.content = (out.content ?? "") + choice.delta.content;
    for (const d of (choice.delta.tool_calls ?? []) as ToolDelta[]) {
      out.deltas.push(d);
      const call = out.calls[d.index] ?? { id: "", name: "", arguments: "" };
      out.calls[d.index] = call;
      if (d.id) call.id = d.id;
      if (d.function?.name) call.name = d.function.name;
      const args = d.function?.arguments;
      if (typeof args === "string") call.arguments += args;
      else if (args !== undefined) call.arguments = JSON.stringify(args);
    }
  }
  return out;
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const ajv = new Ajv2020({ allErrors: true, strict: false });
const schemaOf = (prompt: ToolPrompt, name: string) =>
  prompt.tools.find((t) => t.name === name)?.parameters as JsonSchema;

describe("the reference server's faithful tool calls", () => {
  for (const model of ["ref-small-priced", "vllm", "llamacpp", "gateway"])
    it(`${model}: every suite prompt streams the expected calls, words, or JSON valid against the schema`, async () => {
      const before = server.toolAnswers.length;
      const answers = await mapBounded(TOOLS_V1.prompts, 4, async (prompt) => ({
        prompt,
        got: await ask(model, prompt),
      }));
      for (const { prompt, got } of answers) {
        expect(got.status).toBe(200);
        if (prompt.expected.length > 0) {
          // Order free for parallel calls, as the suite says; here the server keeps the suite's order.
          expect(got.calls.map((c) => ({ name: c.name, arguments: parsed(c.arguments) }))).toEqual(prompt.expected);
          expect(got.finishReason).toBe("tool_calls");
          expect(got.content).toBeNull();
          // The first delta of each call carries its index, id, type and name.
          got.calls.forEach((call, index) => {
            const first = got.deltas.find((d) => d.index === index) as ToolDelta;
            expect(first).toMatchObject({ index, id: call.id, type: "function", function: { name: call.name } });
          });
          expect(new Set(got.calls.map((c) => c.id)).size).toBe(got.calls.length);
        } else {
          expect(got.calls).toEqual([]);
          expect(got.finishReason).toBe("stop");
          if (prompt.responseSchema)
            expect(ajv.validate(prompt.responseSchema.schema, parsed(got.content ?? ""))).toBe(true);
          else expect(got.content).toMatch(/\w/);
        }
      }
      // The server's log says what went out, call for call.
      const logged = server.toolAnswers.slice(before);
      expect(logged).toHaveLength(TOOLS_V1.prompts.length);
      for (const { prompt, got } of answers) {
        const entry = logged.find((a) => a.promptId === prompt.id) as ToolAnswerRecord;
        expect(entry.calls).toEqual(got.calls);
        expect(entry.finishReason).toBe(got.finishReason);
        expect(entry.breakages).toEqual([]);
      }
    });

  it("streams arguments in fragments of 1 to 7 characters, as each family writes them", async () => {
    const prompt = TOOLS_V1.prompts.find((p) => p.id === "directions-zurich") as ToolPrompt;
    const openai = await ask("ref-small-priced", prompt);
    const vllm = await ask("vllm", prompt);
    for (const got of [openai, vllm]) {
      const fragments = got.deltas.flatMap((d) =>
        typeof d.function?.arguments === "string" ? [d.function.arguments] : [],
      );
      const nonEmpty = fragments.filter((f) => f !== "");
      expect(nonEmpty.length).toBeGreaterThan(5);
      for (const f of nonEmpty) expect(f.length).toBeLessThanOrEqual(7);
    }
    // OpenAI: compact JSON, the name's delta with `arguments: ""`; vLLM: json.dumps, ASCII escapes, no `arguments` on the name's delta.
    expect(openai.calls[0]?.arguments).toContain('"origin":"Zürich HB"');
    expect(openai.deltas[0]?.function).toEqual({ name: "get_directions", arguments: "" });
    expect(vllm.calls[0]?.arguments).toContain('"origin": "Z\\u00fcrich HB"');
    expect(vllm.deltas[0]?.function).toEqual({ name: "get_directions" });
    expect(vllm.calls[0]?.id).toMatch(/^chatcmpl-tool-/);
  });

  it("a gateway variant: parallel calls' first deltas both come before their arguments, which arrive whole as objects", async () => {
    const prompt = TOOLS_V1.prompts.find((p) => p.id === "currency-two") as ToolPrompt;
    const before = server.toolAnswers.length;
    const got = await ask("gateway", prompt);
    expect(got.deltas.map((d) => d.index)).toEqual([0, 1]);
    expect(typeof got.deltas[0]?.function?.arguments).toBe("object");
    expect(server.toolAnswers[before]?.argumentsAsObject).toBe(true);
  });

  it("an interleaving variant: once both parallel calls started, their fragments alternate, and assemble by index", async () => {
    const prompt = TOOLS_V1.prompts.find((p) => p.id === "weather-two-cities") as ToolPrompt;
    const got = await ask("interleaving", prompt);
    const indices = got.deltas.map((d) => d.index);
    expect(indices.slice(0, 4)).toEqual([0, 1, 0, 1]);
    expect(got.calls.map((c) => parsed(c.arguments))).toEqual(prompt.expected.map((e) => e.arguments));
  });

  it("answers a request that does not stream with the whole message: its tool calls and finish reason", async () => {
    const prompt = TOOLS_V1.prompts.find((p) => p.id === "weather-and-stock") as ToolPrompt;
    const res = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...requestOf("ref-small-priced", prompt), stream: false }),
    });
    const choice = (await res.json()).choices[0];
    expect(choice.finish_reason).toBe("tool_calls");
    expect(
      choice.message.tool_calls.map((c: { function: { name: string; arguments: string } }) => ({
        name: c.function.name,
        arguments: JSON.parse(c.function.arguments),
      })),
    ).toEqual(prompt.expected);
  });

  it("answers tools it does not know with a plausible call of the first tool, its arguments made up from the schema", async () => {
    const tool = {
      name: "lookup_order",
      description: "Look an order up.",
      parameters: {
        type: "object",
        properties: { order_id: { type: "string" }, region: { type: "string", enum: ["eu", "us"] } },
        required: ["order_id", "region"],
        additionalProperties: false,
      },
    };
    const got = await ask("ref-small-priced", {
      id: "not-in-the-suite",
      kind: "one-call",
      messages: [{ role: "user", content: "Where is order 42?" }],
      tools: [tool],
      expected: [],
    });
    expect(got.finishReason).toBe("tool_calls");
    expect(got.calls.map((c) => c.name)).toEqual(["lookup_order"]);
    expect(ajv.validate(tool.parameters, parsed(got.calls[0]?.arguments ?? ""))).toBe(true);
    expect(server.toolAnswers.at(-1)?.promptId).toBeNull();
  });

  it("breaks every second tool stream with an error event after 3 deltas, as hosted providers do, and logs it", async () => {
    const prompt = TOOLS_V1.prompts.find((p) => p.id === "event-standup") as ToolPrompt;
    const before = server.toolAnswers.length;
    const whole = await ask("failing", prompt);
    const cut = await ask("failing", prompt);
    expect(whole.finishReason).toBe("tool_calls");
    expect(cut.finishReason).toBe("error");
    expect(cut.deltas).toHaveLength(3);
    const logged = server.toolAnswers.slice(before);
    expect(logged.map((a) => a.finishReason)).toEqual(["tool_calls", "error"]);
    expect(logged[1]?.calls).toEqual(cut.calls);
  });

  it("a variant that cuts events inside a multi-byte character: the stream still assembles, and the log counts the cuts", async () => {
    const prompt = TOOLS_V1.prompts.find((p) => p.id === "directions-zurich") as ToolPrompt;
    const before = server.toolAnswers.length;
    const got = await ask("splitting", prompt);
    expect(got.calls.map((c) => ({ name: c.name, arguments: parsed(c.arguments) }))).toEqual(prompt.expected);
    // "Zürich" twice: every fragment holding its ü went out in two writes.
    const withU = got.deltas.filter(
      (d) => typeof d.function?.arguments === "string" && d.function.arguments.includes("ü"),
    );
    expect(withU.length).toBeGreaterThanOrEqual(2);
    expect(server.toolAnswers[before]?.splitEvents).toBe(withU.length);
    expect(splitInsideCharacter("data: ü").map((b) => b.length)).toEqual([7, 1]);
  });

  it("a route without tool support answers 400 to a request with tools, and counts it", async () => {
    const before = server.toolRefusals;
    const got = await ask("no-tools", TOOLS_V1.prompts[0] as ToolPrompt);
    expect(got.status).toBe(400);
    expect(server.toolRefusals).toBe(before + 1);
  });
});

/** The breakages an answer's stream shows, in the order a reader can tell them apart. */
function observed(prompt: ToolPrompt, got: Streamed): Set<ToolBreakage> {
  const seen = new Set<ToolBreakage>();
  const first = got.calls[0];
  if (first) {
    const args = parsed(first.arguments);
    if (args === undefined) seen.add("truncatedArguments");
    else {
      const schema = schemaOf(prompt, first.name);
      const required = (schema.required ?? []) as string[];
      if (required.some((k) => !(k in (args as object)))) seen.add("missingRequired");
      ajv.validate(schema, args);
      if ((ajv.errors ?? []).some((e) => e.keyword === "enum")) seen.add("enumOutside");
    }
    if (got.finishReason === "stop") seen.add("stopAfterCall");
  }
  if (prompt.kind === "parallel" && got.calls.length === 1) seen.add("dropSecondParallel");
  return seen;
}

/** The breakages of a log entry a stream can show: a truncated call hides what else was done to its arguments. */
function visible(entry: ToolAnswerRecord): Set<ToolBreakage> {
  const b = new Set(entry.breakages);
  if (b.has("truncatedArguments")) {
    b.delete("missingRequired");
    b.delete("enumOutside");
  }
  return b;
}

/** The first expected call holds an enum-valued argument (depth first): where `enumOutside` can apply. */
function hasEnumArgument(value: unknown, schema: JsonSchema): boolean {
  if (Array.isArray(schema.enum)) return true;
  if (Array.isArray(value)) return value.some((v) => hasEnumArgument(v, (schema.items ?? {}) as JsonSchema));
  if (value !== null && typeof value === "object") {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    return Object.entries(value).some(([k, v]) => properties[k] !== undefined && hasEnumArgument(v, properties[k]));
  }
  return false;
}

describe("the sloppy route's broken tool calls (ref-small-sloppy)", () => {
  const SAMPLES = 25;

  it("shows each breakage in its streams exactly as its log counts it, at the profile's rate", async () => {
    const before = server.toolAnswers.length;
    const jobs = TOOLS_V1.prompts.flatMap((prompt) => Array.from({ length: SAMPLES }, () => prompt));
    const answers = await mapBounded(jobs, 8, async (prompt) => ({
      prompt,
      got: await ask("ref-small-sloppy", prompt),
    }));
    const logged = server.toolAnswers.slice(before);
    expect(logged).toHaveLength(jobs.length);
    // Answers finish out of order: pair each stream with its log entry by its first call's id (unique), or by prompt for call-less ones.
    const byId = new Map(logged.filter((a) => a.calls[0]).map((a) => [a.calls[0]?.id, a]));
    const fromStreams = new Map<ToolBreakage, number>();
    const fromLog = new Map<ToolBreakage, number>();
    const bump = (m: Map<ToolBreakage, number>, b: ToolBreakage) => m.set(b, (m.get(b) ?? 0) + 1);
    for (const { prompt, got } of answers) {
      for (const b of observed(prompt, got)) bump(fromStreams, b);
      const entry = got.calls[0] ? byId.get(got.calls[0].id) : undefined;
      if (got.calls[0]) {
        expect(entry?.promptId).toBe(prompt.id);
        expect(entry?.calls).toEqual(got.calls);
        for (const b of visible(entry as ToolAnswerRecord)) bump(fromLog, b);
      }
    }
    // Call-less answers (no-call and structured prompts) are never broken.
    expect(logged.filter((a) => a.calls.length === 0).every((a) => a.breakages.length === 0)).toBe(true);
    expect(Object.fromEntries(fromStreams)).toEqual(Object.fromEntries(fromLog));

    // The log's counts against the rates: each is a binomial count over the answers where the
    // breakage can apply; the bound is 4 standard errors, sqrt(n r (1 - r)).
    const withCalls = TOOLS_V1.prompts.filter((p) => p.expected.length > 0);
    const applicable: Record<ToolBreakage, number> = {
      truncatedArguments: withCalls.length * SAMPLES,
      missingRequired: withCalls.length * SAMPLES,
      stopAfterCall: withCalls.length * SAMPLES,
      enumOutside:
        withCalls.filter((p) => {
          const e = p.expected[0] as ToolPrompt["expected"][number];
          return hasEnumArgument(e.arguments, schemaOf(p, e.name));
        }).length * SAMPLES,
      dropSecondParallel: TOOLS_V1.prompts.filter((p) => p.kind === "parallel").length * SAMPLES,
    };
    for (const [breakage, rate] of Object.entries(SLOPPY_TOOL_BREAKAGES) as [ToolBreakage, number][]) {
      const n = applicable[breakage];
      const count = logged.filter((a) => a.breakages.includes(breakage)).length;
      expect(Math.abs(count - n * rate), breakage).toBeLessThanOrEqual(4 * Math.sqrt(n * rate * (1 - rate)));
      expect(count, breakage).toBeGreaterThan(0);
    }
  });
});

describe("the reference routes judged by the phase's measures (4 samples a prompt, as the phase's default)", () => {
  /** A route's run over the suite: every prompt asked 4 times over HTTP; the verdict scores the answers. */
  async function runOf(targetId: string, model: string, reference = false): Promise<ToolCallsRun> {
    const jobs = TOOLS_V1.prompts.flatMap((prompt) => Array.from({ length: 4 }, () => prompt));
    const answers = await mapBounded(jobs, 4, async (prompt) => {
      const got = await ask(model, prompt);
      const answer = {
        promptId: prompt.id,
        outcome: got.status === 200 ? "ok" : "http_error",
        finishReason: got.finishReason,
        calls: got.calls,
        content: got.content,
      };
      return { answer };
    });
    return {
      targetId,
      model: "ref-small",
      reference,
      toolCalls: {
        suite: TOOLS_V1.id,
        support: "supported",
        answers: answers.map((a) => a.answer),
      },
    };
  }

  it("calls a faithful route in another server family's stream `same`, with F1 1, and the sloppy route `worse`", async () => {
    const runs = [
      await runOf("ref-small-priced", "ref-small-priced", true),
      await runOf("vllm-twin", "vllm"),
      await runOf("ref-small-sloppy", "ref-small-sloppy"),
    ];
    const verdicts = toolCallsVerdicts(runs);
    expect(verdicts["vllm-twin"]).toMatchObject({
      verdict: "same",
      cause: "no_difference",
      triggerF1: 1,
      exactCallF1: 1,
    });
    expect(verdicts["ref-small-sloppy"]).toMatchObject({
      verdict: "worse",
      cause: "lower",
      reference: "ref-small-priced",
    });
    expect(verdicts["ref-small-sloppy"]?.lower).toContain("argumentsValid");
    expect(verdicts["ref-small-sloppy"]?.exactCallF1).toBeLessThan(0.9);
    // It calls whenever a call is needed: its trigger F1 is 1, the breakage is in the calls themselves.
    expect(verdicts["ref-small-sloppy"]?.triggerF1).toBe(1);
    expect(verdicts["ref-small-sloppy"]?.measures.find((m) => m.measure === "argumentsValid")?.prompts).toBe(15);
  });
});
