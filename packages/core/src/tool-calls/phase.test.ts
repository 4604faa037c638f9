/**
 * @module The tool-call phase over real HTTP against a server that misbehaves as routes do: arguments
 * in fragments of 1 to 7 characters split anywhere (inside `\u00e9` escapes; the byte stream cut inside
 * multi-byte characters), parallel calls with interleaved indices, `arguments` sent as an object,
 * truncated or schema-breaking arguments, dropped calls, `stop` after a call, connections closed
 * mid-stream and error events. The server logs what each answer holds on every measure, by how it
 * built it; the shares kneeboard reports must equal that log's counts exactly. Nothing is timed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StreamingClient } from "../client/index.ts";
import { parseConfig, toolCallsFor, workloadFor } from "../config/index.ts";
import { seededRandom } from "../random/index.ts";
import { RunDocument, type ToolCalls } from "../run/index.ts";
import { indexEntryFor, RunIndexEntry } from "../run-index/index.ts";
import { runSweep } from "../sweep/index.ts";
import { measuresOf, TOOL_MEASURES, type ToolMeasure } from "./measures.ts";
import { REFUSAL_REQUESTS, runToolCalls } from "./phase.ts";
import { TOOL_SUITE, TOOLS_V1, type ToolPrompt } from "./suite.ts";

/** A valid answer to each structured prompt. */
const STRUCTURED: Record<string, unknown> = {
  "json-person": { name: "Ada Lovelace", birth_year: 1815, city: "London" },
  "json-sentiment": { sentiment: "negative", confidence: 0.9 },
  "json-recipe": {
    title: "Crêpes",
    ingredients: [
      { name: "flour", quantity: 125, unit: "g" },
      { name: "milk", quantity: 250, unit: "ml" },
      { name: "egg", quantity: 2, unit: "piece" },
    ],
  },
  "json-address": {
    street: { number: "10", name: "Downing Street" },
    city: "London",
    postcode: "SW1A 2AA",
    country_code: "GB",
  },
};

/** How the server answers one request, by prompt kind; rotated per prompt so each comes up. */
const BEHAVIOURS = {
  calls: [
    "faithful",
    "asObject",
    "text",
    "truncated",
    "extraProperty",
    "missingRequired",
    "stopAfterCall",
    "dropSecond",
    "wrongTool",
    "close",
    "errorEvent",
  ],
  none: ["text", "spuriousCall", "close", "errorEvent"],
  structured: ["valid", "truncated", "extraProperty", "close", "errorEvent"],
} as const;

/** What the server sent, in its own words: the answer's truth on each measure it counts toward. */
interface LogEntry {
  promptId: string;
  /** The calls and text sent, for the answers that came whole. */
  sent?: { calls: Call[]; content: string | null };
  behaviour: string;
  failed: boolean;
  asObject: boolean;
  truth: Partial<Record<ToolMeasure, 0 | 1>>;
}

type Truth = Partial<Record<ToolMeasure, 0 | 1>>;

interface Call {
  name: string;
  args: string;
}

const promptByUser = new Map(TOOLS_V1.prompts.map((p) => [p.messages.find((m) => m.role === "user")?.content, p]));
const b = (x: boolean): 0 | 1 => (x ? 1 : 0);

/** Non-ASCII characters as `\uXXXX` escapes: a fragment may then end inside one. */
const escapeNonAscii = (json: string) =>
  json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** The calls, finish reason and content of an answer, and its truth on each measure, by behaviour. */
function answerFor(
  prompt: ToolPrompt,
  behaviour: string,
  escaped: boolean,
): { calls: Call[]; finish: string; content: string | null; truth: Truth } {
  const json = (value: unknown) => (escaped ? escapeNonAscii(JSON.stringify(value)) : JSON.stringify(value));
  const faithful: Call[] = prompt.expected.map((e) => ({ name: e.name, args: json(e.arguments) }));
  const parallel = prompt.kind === "parallel";
  const both = (x: 0 | 1) => (parallel ? { parallelBoth: x } : {});
  const all = {
    callWhenNeeded: 1,
    rightTool: 1,
    argumentsParse: 1,
    argumentsValid: 1,
    argumentValues: 1,
    finishReason: 1,
  } as const;
  const first = prompt.expected[0];
  const firstKey = first ? (Object.keys(first.arguments)[0] as string) : "";
  const withFirst = (args: Record<string, unknown>): Call[] => [
    { name: first?.name ?? "", args: json(args) },
    ...faithful.slice(1),
  ];
  const wrong = prompt.tools.find((t) => !prompt.expected.some((e) => e.name === t.name));
  switch (
    `${prompt.kind === "no-call" ? "none" : prompt.kind === "structured" ? "structured" : "calls"}:${behaviour}`
  ) {
    case "calls:faithful":
    case "calls:asObject":
      return { calls: faithful, finish: "tool_calls", content: null, truth: { ...all, ...both(1) } };
    case "calls:text":
      return {
        calls: [],
        finish: "stop",
        content: "I can't do that here.",
        // Words where a call was needed fail every argument measure too: they never drop out.
        truth: {
          callWhenNeeded: 0,
          rightTool: 0,
          argumentsParse: 0,
          argumentsValid: 0,
          argumentValues: 0,
          finishReason: 1,
          ...both(0),
        } as const,
      };
    case "calls:truncated": {
      const args = faithful[0]?.args ?? "";
      const calls = [
        { name: first?.name ?? "", args: args.slice(0, Math.floor(args.length / 2)) },
        ...faithful.slice(1),
      ];
      return {
        calls,
        finish: "tool_calls",
        content: null,
        truth: { ...all, argumentsParse: 0, argumentsValid: 0, argumentValues: 0, ...both(1) },
      };
    }
    case "calls:extraProperty":
      return {
        calls: withFirst({ ...first?.arguments, unexpected: true }),
        finish: "tool_calls",
        content: null,
        truth: { ...all, argumentsValid: 0, ...both(1) },
      };
    case "calls:missingRequired": {
      const { [firstKey]: _dropped, ...rest } = first?.arguments ?? {};
      return {
        calls: withFirst(rest),
        finish: "tool_calls",
        content: null,
        truth: { ...all, argumentsValid: 0, argumentValues: 0, ...both(1) },
      };
    }
    case "calls:stopAfterCall":
      return { calls: faithful, finish: "stop", content: null, truth: { ...all, finishReason: 0, ...both(1) } };
    case "calls:dropSecond":
      // The tools are a multiset: a dropped call is the wrong tools, whether the two were the same tool or not.
      return {
        calls: faithful.slice(0, 1),
        finish: "tool_calls",
        content: null,
        truth: { ...all, rightTool: b(!parallel), argumentValues: b(!parallel), ...both(0) },
      };
    case "calls:wrongTool":
      return {
        calls: [{ name: wrong?.name ?? "", args: "{}" }],
        finish: "tool_calls",
        content: null,
        truth: {
          callWhenNeeded: 1,
          rightTool: 0,
          argumentsParse: 1,
          argumentsValid: 0,
          argumentValues: 0,
          finishReason: 1,
          ...both(0),
        } as const,
      };
    case "none:text":
      return {
        calls: [],
        finish: "stop",
        content: "Quarante-deux — voilà, en français.",
        truth: { noCallWhenNone: 1, finishReason: 1 } as const,
      };
    case "none:spuriousCall":
      return {
        calls: [{ name: prompt.tools[0]?.name ?? "", args: "{}" }],
        finish: "tool_calls",
        content: null,
        truth: { noCallWhenNone: 0, finishReason: 1 } as const,
      };
    case "structured:valid":
      return {
        calls: [],
        finish: "stop",
        content: JSON.stringify(STRUCTURED[prompt.id]),
        truth: { structuredOutput: 1, finishReason: 1 } as const,
      };
    case "structured:truncated": {
      const text = JSON.stringify(STRUCTURED[prompt.id]);
      return {
        calls: [],
        finish: "stop",
        content: text.slice(0, text.length - 3),
        truth: { structuredOutput: 0, finishReason: 1 } as const,
      };
    }
    case "structured:extraProperty":
      return {
        calls: [],
        finish: "stop",
        content: JSON.stringify({ ...(STRUCTURED[prompt.id] as object), note: "extra" }),
        truth: { structuredOutput: 0, finishReason: 1 } as const,
      };
    default:
      // close and errorEvent: a faithful start that never finishes, a failure on every measure of its prompt.
      return {
        calls: faithful,
        finish: "tool_calls",
        content: faithful.length > 0 ? null : "Partial",
        truth: Object.fromEntries(measuresOf(prompt).map((m) => [m, 0])),
      };
  }
}

/** `text` in fragments of 1 to 7 characters. */
function fragments(text: string, random: () => number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(random() * 7);
    out.push(text.slice(at, at + size));
    at += size;
  }
  return out;
}

const event = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-t", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** The SSE text of an answer: tool-call deltas interleaved across indices, or content fragments. */
function streamOf(answer: ReturnType<typeof answerFor>, asObject: boolean, random: () => number): string[] {
  const events = [event({ role: "assistant", content: "" })];
  if (answer.content !== null) for (const f of fragments(answer.content, random)) events.push(event({ content: f }));
  const calls = answer.calls;
  for (const [index, c] of calls.entries())
    events.push(
      event({
        tool_calls: [{ index, id: `call_${index}`, type: "function", function: { name: c.name, arguments: "" } }],
      }),
    );
  if (asObject)
    for (const [index, c] of calls.entries())
      events.push(event({ tool_calls: [{ index, function: { arguments: JSON.parse(c.args) } }] }));
  else {
    // Interleave: the next fragment comes from a call picked at random among those with some left.
    const queues = calls.map((c) => fragments(c.args, random));
    for (;;) {
      const open = queues.map((q, i) => (q.length > 0 ? i : -1)).filter((i) => i >= 0);
      if (open.length === 0) break;
      const index = open[Math.floor(random() * open.length)] as number;
      events.push(event({ tool_calls: [{ index, function: { arguments: queues[index]?.shift() } }] }));
    }
  }
  events.push(event({}, answer.finish));
  events.push(
    `data: ${JSON.stringify({ id: "chatcmpl-t", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 } })}\n\n`,
    "data: [DONE]\n\n",
  );
  return events;
}

const log: LogEntry[] = [];
const perPrompt = new Map<string, number>();
let plainRequests = 0;
let strayCount = 0;
let server: Server;
let baseURL: string;

/**
 * Writes `bytes` in slices of 1 to 48 bytes, yielding between them, and cuts every multi-byte
 * character after its first byte: the client's reads then end inside characters.
 */
async function writeSliced(res: ServerResponse, bytes: Buffer, random: () => number, stopAt = bytes.length) {
  for (let at = 0; at < stopAt; ) {
    let end = Math.min(stopAt, at + 1 + Math.floor(random() * 48));
    // A lead byte of a multi-byte character (0b11xxxxxx) in the slice: end the slice just after it.
    for (let i = at; i < end; i++)
      if (((bytes[i] ?? 0) & 0xc0) === 0xc0) {
        end = i + 1;
        break;
      }
    res.write(bytes.subarray(at, end));
    at = end;
    await new Promise((r) => setImmediate(r));
  }
}

/** Tool-call requests in flight now, and at most (the phase's concurrency bounds it). */
let inFlight = 0;
let maxInFlight = 0;

async function answer(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): Promise<void> {
  if (body.tools !== undefined || body.response_format !== undefined) {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => inFlight--);
    // What every tool-call request asks: temperature 0, 256 tokens, tools with tool_choice auto or a strict schema.
    expect(body).toMatchObject({ temperature: 0, max_tokens: 256, stream: true });
    if (body.tools !== undefined) expect(body.tool_choice).toBe("auto");
    else expect(body.response_format).toMatchObject({ type: "json_schema", json_schema: { strict: true } });
  }
  const messages = body.messages as { role: string; content: string }[];
  const user = messages.find((m) => m.role === "user")?.content;
  const prompt = promptByUser.get(user);
  if (!prompt || (body.tools === undefined && body.response_format === undefined)) {
    // A plain request of a level: a short text answer.
    plainRequests++;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(
      `${event({ role: "assistant", content: "" })}${event({ content: "hello there" })}${event({}, "stop")}data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } })}\n\ndata: [DONE]\n\n`,
    );
    return;
  }
  // One refusal, the fifth request with tools: a stray 400, not a route without tools.
  if (body.model === "stray" && body.tools !== undefined && ++strayCount === 5) {
    log.push({
      promptId: prompt.id,
      behaviour: "refused",
      failed: true,
      asObject: false,
      truth: Object.fromEntries(measuresOf(prompt).map((m) => [m, 0])),
    });
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "tools are not supported right now", type: "invalid_request_error" } }));
    return;
  }
  if (body.model === "refuses" && body.tools !== undefined) {
    log.push({ promptId: prompt.id, behaviour: "refused", failed: true, asObject: false, truth: {} });
    res.writeHead(400, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ error: { message: "tools are not supported for this model", type: "invalid_request_error" } }),
    );
    return;
  }
  if (body.model === "ignores") {
    // A route that takes the tools and never calls one: text every time, JSON never.
    log.push({ promptId: prompt.id, behaviour: "ignores", failed: false, asObject: false, truth: {} });
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(
      streamOf({ calls: [], finish: "stop", content: "Sure, happy to help.", truth: {} }, false, Math.random).join(""),
    );
    return;
  }
  const k = perPrompt.get(prompt.id) ?? 0;
  perPrompt.set(prompt.id, k + 1);
  const at = TOOLS_V1.prompts.indexOf(prompt);
  const list = BEHAVIOURS[prompt.kind === "no-call" ? "none" : prompt.kind === "structured" ? "structured" : "calls"];
  let behaviour: string = list[(at + k) % list.length] as string;
  // A one-call prompt has no second call to drop: it answers faithfully instead.
  if (behaviour === "dropSecond" && prompt.kind !== "parallel") behaviour = "faithful";
  const random = seededRandom(1000 * at + k + 7);
  // Every other request of a prompt escapes its non-ASCII characters (`\u00fc`), the rest send them raw.
  const escaped = k % 2 === 0;
  const built = answerFor(prompt, behaviour, escaped);
  const asObject = behaviour === "asObject";
  const failed = behaviour === "close" || behaviour === "errorEvent";
  log.push({
    promptId: prompt.id,
    behaviour,
    failed,
    asObject,
    truth: built.truth,
    sent: { calls: built.calls, content: built.content },
  });
  const events = streamOf(built, asObject, random);
  res.writeHead(200, { "content-type": "text/event-stream" });
  if (behaviour === "errorEvent") {
    const cut = Math.max(1, Math.floor(events.length / 2));
    const text = `${events.slice(0, cut).join("")}event: error\ndata: ${JSON.stringify({ error: { message: "upstream overloaded", code: 502 } })}\n\n`;
    await writeSliced(res, Buffer.from(text), random);
    res.end();
    return;
  }
  const bytes = Buffer.from(events.join(""));
  if (behaviour === "close") {
    await writeSliced(res, bytes, random, Math.floor(bytes.length / 2));
    req.socket.destroy();
    return;
  }
  await writeSliced(res, bytes, random);
  res.end();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => {
      text += d;
    });
    req.on("end", () => void answer(req, res, JSON.parse(text) as Record<string, unknown>));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const WORKLOAD = { requestTimeoutSeconds: 30, streamIdleTimeoutSeconds: 30 };
const SETTINGS = { samplesPerPrompt: 4, concurrency: 4, temperature: 0, maxTokens: 256 };

/** Each measure's successes and trials as the server's log gives them. */
function logCounts(entries: LogEntry[]) {
  return Object.fromEntries(
    TOOL_MEASURES.map((m) => {
      const counted = entries.filter((e) => e.truth[m] !== undefined);
      return [m, { successes: counted.filter((e) => e.truth[m] === 1).length, trials: counted.length }];
    }),
  );
}

describe("the tool-call phase against a misbehaving streaming server", () => {
  let result: ToolCalls;
  beforeAll(async () => {
    log.length = 0;
    perPrompt.clear();
    maxInFlight = 0;
    const client = new StreamingClient({ baseURL, model: "sloppy", route: { gateway: "direct" } });
    result = await runToolCalls({
      client,
      settings: SETTINGS,
      workload: WORKLOAD,
      stopReason: () => null,
      suite: TOOLS_V1,
    });
  }, 60_000);

  it("sends every prompt 4 times, and each behaviour comes up", () => {
    expect(result).toMatchObject({
      suite: "tools-v1",
      support: "supported",
      supportDetail: null,
      stopped: null,
      requests: 96,
    });
    expect(log).toHaveLength(96);
    // At most `concurrency` at once (several do overlap: each answer takes many writes).
    expect(maxInFlight).toBeLessThanOrEqual(4);
    expect(maxInFlight).toBeGreaterThan(1);
    const seen = new Set(log.map((e) => e.behaviour));
    for (const behaviour of [...BEHAVIOURS.calls, ...BEHAVIOURS.none, ...BEHAVIOURS.structured])
      expect(seen.has(behaviour), behaviour).toBe(true);
  });

  it("reports every share with the successes and trials the server's log gives, exactly", () => {
    const counts = logCounts(log);
    for (const m of TOOL_MEASURES)
      expect({ m, successes: result.shares[m].successes, trials: result.shares[m].trials }).toEqual({
        m,
        ...counts[m],
      });
    // Every measure was exercised both ways.
    for (const m of TOOL_MEASURES) {
      expect(counts[m]?.trials, m).toBeGreaterThan(counts[m]?.successes ?? 0);
      expect(counts[m]?.successes, m).toBeGreaterThan(0);
    }
  });

  it("counts failed requests and arguments sent as objects as the server sent them", () => {
    expect(result.failed).toBe(log.filter((e) => e.failed).length);
    expect(result.answers.filter((a) => a.outcome !== "ok").every((a) => a.outcome === "incomplete")).toBe(true);
    expect(result.answers.filter((a) => a.argumentsAsObject).length).toBe(log.filter((e) => e.asObject).length);
  });

  it("assembles every whole answer's calls and text exactly as sent, escapes and multi-byte characters included", () => {
    const whole = log.filter((e) => !e.failed);
    expect(whole.length).toBe(result.answers.filter((a) => a.outcome === "ok").length);
    // Answers and log entries pair up by prompt and by order within it (a prompt's requests are sequential).
    const sentOf = new Map<string, LogEntry[]>();
    for (const e of log) sentOf.set(e.promptId, [...(sentOf.get(e.promptId) ?? []), e]);
    const got = new Map<string, typeof result.answers>();
    for (const a of result.answers) got.set(a.promptId, [...(got.get(a.promptId) ?? []), a]);
    for (const [promptId, entries] of sentOf) {
      const answers = got.get(promptId) ?? [];
      // The requests of one prompt may overlap (4 at once), so match the multisets, not the order.
      const key = (calls: { name: string | null; args: string }[], content: string | null) =>
        JSON.stringify([calls.map((c) => [c.name, c.args]), content]);
      const sent = entries
        .filter((e) => !e.failed)
        .map((e) =>
          key(
            (e.sent?.calls ?? []).map((c) => ({
              name: c.name,
              args: e.asObject ? JSON.stringify(JSON.parse(c.args)) : c.args,
            })),
            e.sent?.content ?? null,
          ),
        )
        .sort();
      const assembled = answers
        .filter((a) => a.outcome === "ok")
        .map((a) =>
          key(
            a.calls.map((c) => ({ name: c.name, args: c.arguments })),
            a.content,
          ),
        )
        .sort();
      expect(assembled, promptId).toEqual(sent);
    }
    // Some whole answer carried raw multi-byte characters, and some \u escapes, in its arguments.
    const args = whole.flatMap((e) => e.sent?.calls.map((c) => c.args) ?? []);
    expect(args.some((a) => a.includes("î"))).toBe(true);
    expect(args.some((a) => a.includes("\\u00fc") || a.includes("\\u00e9"))).toBe(true);
  });
});

describe("a route that ignores tools, and a sweep that stops", () => {
  it("text where every call was needed: supported, with its rates, not an error", async () => {
    log.length = 0;
    const client = new StreamingClient({ baseURL, model: "ignores", route: { gateway: "direct" } });
    const r = await runToolCalls({
      client,
      settings: SETTINGS,
      workload: WORKLOAD,
      stopReason: () => null,
      suite: TOOLS_V1,
    });
    expect(r).toMatchObject({ support: "supported", requests: 96, failed: 0, stopped: null });
    // 15 one-call and parallel prompts x 4 answered in words; 5 no-call prompts x 4 right; 4 structured x 4 not JSON.
    expect(r.shares.callWhenNeeded).toMatchObject({ successes: 0, trials: 60, share: 0, low: 0 });
    expect(r.shares.noCallWhenNone).toMatchObject({ successes: 20, trials: 20, share: 1, high: 1 });
    expect(r.shares.structuredOutput).toMatchObject({ successes: 0, trials: 16 });
    expect(r.shares.finishReason).toMatchObject({ successes: 96, trials: 96 });
    for (const m of ["rightTool", "argumentsParse", "argumentsValid", "argumentValues"] as const)
      expect(r.shares[m]).toMatchObject({ successes: 0, trials: 60, share: 0 });
    expect(r.shares.parallelBoth).toMatchObject({ successes: 0, trials: 20 });
  });

  it("ends where the sweep stops: the answers so far stand, and it says why", async () => {
    log.length = 0;
    let asked = 0;
    const client = new StreamingClient({ baseURL, model: "ignores", route: { gateway: "direct" } });
    const r = await runToolCalls({
      client,
      settings: { ...SETTINGS, concurrency: 1 },
      workload: WORKLOAD,
      suite: TOOLS_V1,
      stopReason: () => (++asked > 10 ? "deadline reached" : null),
    });
    expect(r).toMatchObject({ stopped: "deadline reached", requests: 10 });
    expect(log).toHaveLength(10);
  });
});

describe("a route that refuses tools", () => {
  it("is no-tool-support, its shares count nothing, and its sweep completes", async () => {
    log.length = 0;
    const config = parseConfig(
      JSON.stringify({
        targets: [{ id: "refuses", label: "refuses", baseURL, model: "refuses", route: { gateway: "direct" } }],
        workload: {
          concurrency: [1],
          requestsPerLevel: 2,
          warmupRequests: 0,
          maxTokens: 4,
          toolCalls: { concurrency: 1 },
        },
      }),
    );
    const target = config.targets[0] as (typeof config.targets)[number];
    const workload = workloadFor(config, target);
    const plainBefore = plainRequests;
    const doc = await runSweep({ target, workload, toolCalls: toolCallsFor(workload) });
    // The sweep finished (whether its level is valid depends on this busy machine's client health, not asserted).
    expect(doc.status).not.toBe("partial");
    expect(doc.levels.map((l) => l.requests.ok)).toEqual([2]);
    expect(plainRequests - plainBefore).toBe(2);
    expect(doc.toolCalls).toMatchObject({
      support: "no-tool-support",
      stopped: "the route refused tools",
      requests: REFUSAL_REQUESTS,
      failed: REFUSAL_REQUESTS,
      samplesPerPrompt: 4,
      concurrency: 1,
    });
    expect(doc.toolCalls?.supportDetail).toMatch(/^HTTP 400: .*tools are not supported/);
    expect(log.map((e) => e.behaviour)).toEqual(Array(REFUSAL_REQUESTS).fill("refused"));
    for (const m of TOOL_MEASURES)
      expect(doc.toolCalls?.shares[m]).toEqual({ successes: 0, trials: 0, share: null, low: null, high: null });
    // The document reads back as written, and its index entry carries the phase in brief.
    expect(RunDocument.parse(JSON.parse(JSON.stringify(doc)))).toEqual(doc);
    const entry = RunIndexEntry.parse(JSON.parse(JSON.stringify(indexEntryFor("k", doc))));
    expect(entry.toolCalls).toEqual({
      suite: TOOL_SUITE.id,
      support: "no-tool-support",
      shares: doc.toolCalls?.shares,
    });
  }, 60_000);

  it("is supported when a refusal comes after answered requests with tools: that 400 is one failed request", async () => {
    log.length = 0;
    strayCount = 0;
    const client = new StreamingClient({ baseURL, model: "stray", route: { gateway: "direct" } });
    const r = await runToolCalls({
      client,
      settings: SETTINGS,
      workload: WORKLOAD,
      stopReason: () => null,
      suite: TOOLS_V1,
    });
    expect(r).toMatchObject({ support: "supported", supportDetail: null, stopped: null, requests: 96 });
    expect(log.filter((e) => e.behaviour === "refused")).toHaveLength(1);
    expect(r.failed).toBe(log.filter((e) => e.failed).length);
    // The refusal fails every measure of its prompt, as the other failed requests do: the shares equal the log's counts.
    const counts = logCounts(log);
    for (const m of TOOL_MEASURES)
      expect({ m, ...counts[m] }).toEqual({ m, successes: r.shares[m].successes, trials: r.shares[m].trials });
  }, 60_000);
});
