/**
 * @module The reference targets over HTTP: OpenAI-compatible `/v1/chat/completions` (stream and not)
 * and `/v1/models`, plus an OpenRouter-like gateway front that honours `provider.order`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SIMULATED_HEADER } from "@kneeboard/core/client";
import { seededRandom } from "@kneeboard/core/random";
import { drawWords, type WordDistortion } from "@kneeboard/core/synthetic/words";
import { Engine, type EngineProfile, type Sequence } from "./engine.ts";
import { PrefixCache, type PrefixCacheOptions } from "./prefix-cache.ts";
import {
  assembleDeltas,
  isToolRequest,
  type PlannedCall,
  planToolAnswer,
  splitInsideCharacter,
  type ToolAnswerPlan,
  type ToolBreakage,
  type ToolsProfile,
  toolDeltas,
  toolMessage,
} from "./tools.ts";

/** How one model streams, on top of its engine. */
export interface StreamProfile extends EngineProfile {
  /** Tokens per SSE chunk (default 1). */
  tokensPerChunk?: number;
  /** Send a role-only chunk at once, before prefill. */
  roleChunk?: boolean;
  /** Honour stream_options.include_usage (default true). */
  sendUsage?: boolean;
  /** Token bucket: past it, 429 with retry-after. */
  rateLimit?: { requestsPerSecond: number; burst: number };
  /**
   * A reasoning model: the first `tokens` generated tokens stream as reasoning deltas in `field`
   * (`reasoning` as OpenRouter sends them, `reasoning_content` as vLLM and DeepSeek do), then the
   * answer; usage reports them as `completion_tokens_details.reasoning_tokens`. At most
   * `max_tokens - 1` tokens reason, so every answer has at least one token of content.
   */
  reasoning?: { tokens: number; field: "reasoning" | "reasoning_content" };
  /** A gateway that meters cost: usage.cost = (prompt x input + completion x output) / 1e6, USD. */
  meter?: { inputPerMillionUsd: number; outputPerMillionUsd: number };
  /** Report this share of the prompt as cached (`prompt_tokens_details.cached_tokens`, rounded down), as OpenRouter does. */
  cachedPromptShare?: number;
  /**
   * A prefix cache (./prefix-cache.ts): the leading whole blocks of a prompt an earlier request
   * prefilled cost no prefill, and are reported as `prompt_tokens_details.cached_tokens` unless
   * `report` is false (a cache the API does not report). Without it every prompt token is prefilled
   * (`prefillPerTokenMs` each), so TTFT grows with the prompt, and no cached tokens are reported.
   */
  prefixCache?: PrefixCacheOptions & { report?: boolean };
  /**
   * Deterministic refusals, answered with `status` (and `retry-after` when `retryAfterSeconds` is set):
   * every `every`-th request to the model (1-based), and/or every request arriving while
   * `whenInFlightAtLeast` requests are being served.
   */
  refuse?: { status: number; every?: number; whenInFlightAtLeast?: number; retryAfterSeconds?: number };
  /** Accept requests and never answer them: an endpoint that hangs. */
  stall?: boolean;
  /**
   * Every `every`-th streamed request to the model (1-based) breaks after `afterTokens` tokens:
   * `stall` holds the connection open with no byte more (hosted providers under load), `error` sends
   * OpenRouter's mid-stream error, `{"error": {...}}` with `finish_reason: "error"` in a data line,
   * and ends the stream.
   */
  midStream?: { every: number; afterTokens: number; fault: "stall" | "error" };
  /**
   * A slow tail, repeating every `period` requests to the model (by arrival, 1-based): request k waits
   * `delaysMs[(k - 1) % period]` ms (absent: 0) before its prefill, as a request stuck behind a long
   * one does, and comes back late. With `giveUpAfterMs`, a request whose wait reaches it is answered
   * HTTP 504 at that time instead, as a gateway with a first-byte timeout does: a route that fails its
   * slowest requests rather than serving them late. `tailFailures` counts those 504s.
   */
  slowTail?: { period: number; delaysMs: readonly number[]; giveUpAfterMs?: number };
  /** Characters of prompt text per prompt token this model counts (default 4), as tokenizers differ. */
  charsPerPromptToken?: number;
  /**
   * Above temperature 0 every model writes words drawn from the known word distribution
   * (`@kneeboard/core/synthetic/words`), one word a token; with this, from a distorted copy of it
   * (each drawn word's rank moved one place with the given probability), as a quantized model would.
   * At temperature 0 every model writes " tok" tokens, as the throughput sweeps need.
   */
  distortion?: WordDistortion;
  /**
   * How the model answers a request with `tools` or a `json_schema` response format (./tools.ts):
   * default, faithfully as the tool-call suite expects, streamed as OpenAI does.
   */
  tools?: ToolsProfile;
}

/** Tokens of a request's answer spent reasoning: the profile's count, leaving at least one token of content. */
export function reasoningTokensOf(profile: StreamProfile, maxTokens: number): number {
  return profile.reasoning ? Math.max(0, Math.min(profile.reasoning.tokens, maxTokens - 1)) : 0;
}

/** The usage object of one finished request, with the details and cost the profile reports. */
function usageOf(
  profile: StreamProfile,
  promptTokens: number,
  completionTokens: number,
  cachedTokens: number,
): Record<string, unknown> {
  const usage: Record<string, unknown> = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (profile.meter)
    usage.cost =
      (promptTokens * profile.meter.inputPerMillionUsd + completionTokens * profile.meter.outputPerMillionUsd) / 1e6;
  if (profile.cachedPromptShare !== undefined)
    usage.prompt_tokens_details = { cached_tokens: Math.floor(promptTokens * profile.cachedPromptShare) };
  if (profile.prefixCache && profile.prefixCache.report !== false)
    usage.prompt_tokens_details = { cached_tokens: cachedTokens };
  if (profile.reasoning)
    usage.completion_tokens_details = { reasoning_tokens: reasoningTokensOf(profile, completionTokens) };
  return usage;
}

/** A model served directly, or a gateway model served by one of several providers. */
export type ModelSpec =
  | { kind: "model"; id: string; profile: StreamProfile }
  | {
      kind: "gateway";
      id: string;
      defaultProvider: string;
      providers: { name: string; profile: StreamProfile; fallbackEvery?: number }[];
    };

interface Served {
  engine: Engine;
  profile: StreamProfile;
  /** The model's prefix cache, when its profile has one. */
  cache?: PrefixCache;
  bucket?: { tokens: number; lastMs: number };
  /** Requests to this model so far, and those being served now. */
  arrived: number;
  serving: number;
}

/** The response a `refuse` profile gives the request that just arrived, or null to serve it. */
function refusal(served: Served): { status: number; headers: Record<string, string> } | null {
  const refuse = served.profile.refuse;
  if (!refuse) return null;
  const byCount = refuse.every !== undefined && served.arrived % refuse.every === 0;
  const byLoad = refuse.whenInFlightAtLeast !== undefined && served.serving >= refuse.whenInFlightAtLeast;
  if (!byCount && !byLoad) return null;
  const headers: Record<string, string> =
    refuse.retryAfterSeconds !== undefined ? { "retry-after": String(refuse.retryAfterSeconds) } : {};
  return { status: refuse.status, headers };
}

/** The messages as one text, roles included: what a prefix cache's blocks are cut from. */
function promptText(messages: unknown): string {
  return Array.isArray(messages)
    ? messages
        .map(
          (m) =>
            `${String((m as { role?: unknown }).role ?? "")}\n${String((m as { content?: unknown }).content ?? "")}`,
        )
        .join("\n")
    : "";
}

/** The user text of the messages, as one string. */
function messageText(messages: unknown): string {
  return Array.isArray(messages)
    ? messages.map((m) => String((m as { content?: unknown }).content ?? "")).join(" ")
    : "";
}

/** FNV-1a of a text: the seed of one answer's words. */
function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Prompt tokens of the messages as this model counts them: one per `charsPerPromptToken` characters (default 4). */
function promptTokensOf(messages: unknown, charsPerPromptToken = 4): number {
  return Math.max(1, Math.ceil(messageText(messages).length / charsPerPromptToken));
}

function takeToken(served: Served): number | null {
  const limit = served.profile.rateLimit;
  if (!limit) return null;
  const now = performance.now();
  served.bucket ??= { tokens: limit.burst, lastMs: now };
  served.bucket.tokens = Math.min(
    limit.burst,
    served.bucket.tokens + ((now - served.bucket.lastMs) / 1000) * limit.requestsPerSecond,
  );
  served.bucket.lastMs = now;
  if (served.bucket.tokens >= 1) {
    served.bucket.tokens -= 1;
    return null;
  }
  return Math.max(1, Math.ceil((1 - served.bucket.tokens) / limit.requestsPerSecond));
}

const error = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
  res
    .writeHead(status, { "content-type": "application/json", ...headers })
    .end(JSON.stringify({ error: { message, type: "reference_error", code: status } }));

/**
 * When the server itself handled one streamed response: the truth a client's TTFT and per-stream
 * figures are checked against. Times are epoch ms taken as `performance.timeOrigin + performance.now()`
 * (sub-ms, and comparable with the same reading in another process on the same machine).
 */
export interface ResponseTiming {
  responseId: string;
  /** The request's headers arrived. */
  arrivedAtMs: number;
  /** The first token's chunk was written to the socket; null when none was. */
  firstTokenAtMs: number | null;
  /** The last token's chunk was written; null until the stream finished. */
  lastTokenAtMs: number | null;
  /** Tokens written. */
  tokens: number;
  /** The request's `max_tokens`, and its prompt tokens as the model counted them. */
  maxTokens: number;
  promptTokens: number;
  /** Prompt tokens its prefix cache served (`cached_tokens`); null without `prefixCache`. */
  cachedTokens: number | null;
  /** The prompt's text (its messages' contents joined), with `recordPrompts`; null otherwise. */
  prompt: string | null;
}

/** Records beyond this many are dropped (the oldest stay) until taken: a bound for long-running servers. */
const MAX_TIMINGS = 200_000;

const epochMs = () => performance.timeOrigin + performance.now();

/**
 * Every response of the reference server carries `SIMULATED_HEADER`: it is simulated, not a
 * provider. The client reads it (`RawResult.simulated`), so a run against `kneeboard
 * serve-reference` is marked `simulated` however it was started.
 */
export { SIMULATED_HEADER };

export interface ReferenceServer {
  /** Base URL with `/v1`, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  port: number;
  /** The engine of a model (or `gateway/provider`), for in-flight statistics. */
  engine(id: string): Engine;
  /** Which gateway requests were served by another provider than pinned, in arrival order. */
  fallbacks: { model: string; pinned: string; served: string }[];
  /** With `recordPrompts`: how many times each user message arrived (a request sent twice counts 2). */
  prompts: Map<string, number>;
  /** With `recordPrompts`: every chat request's messages as they arrived, in arrival order, with the model's counts. */
  requests: ReceivedRequest[];
  /** Every answer to a tool request, in the order finished (or abandoned by the client: finish reason null). */
  toolAnswers: ToolAnswerRecord[];
  /** Tool requests refused (`tools.refuse`). */
  readonly toolRefusals: number;
  /** Requests answered 504 by a `slowTail`'s `giveUpAfterMs`. */
  readonly tailFailures: number;
  /** Returns the timing record of every streamed response since the last call, and clears it. */
  takeTimings(): ResponseTiming[];
  /** Requests read (every path, counted as they arrive) and TCP connections accepted, since the start. */
  counts(): ServerCounts;
  close(): Promise<void>;
}

/**
 * One answer to a tool request, as the server sent it (the deltas it wrote, assembled): the truth a
 * client's tool-call shares are checked against.
 */
export interface ToolAnswerRecord {
  model: string;
  /** The suite prompt the messages matched; null for a request in no suite. */
  promptId: string | null;
  /** The breakages the profile applied to this answer. */
  breakages: ToolBreakage[];
  calls: PlannedCall[];
  content: string | null;
  /** The finish reason sent; null when the client went away first. */
  finishReason: string | null;
  /** Arguments went out as JSON objects, not strings (`argumentsAsObject`). */
  argumentsAsObject: boolean;
  /** Events written in two pieces cut inside a multi-byte character (`splitMultibyte`). */
  splitEvents: number;
}

/** One chat request as the server received it (with `recordPrompts`). */
export interface ReceivedRequest {
  model: string;
  messages: { role: string; content: string }[];
  /** Prompt tokens as the model counted them; null when the request was not served (refused, unknown model). */
  promptTokens: number | null;
  /** Prompt tokens its prefix cache served; null without one or when not served. */
  cachedTokens: number | null;
}

/** What a server saw of its clients: requests read and connections accepted. */
export interface ServerCounts {
  requests: number;
  connections: number;
}

/**
 * How the server keeps connections: `keep-alive` (idle ones kept 60 s), or `close-after-response`,
 * as llama.cpp's `llama-server` does: it advertises `Keep-Alive: timeout=5, max=100` and closes the
 * connection after every response anyway, so a client that reuses the socket meets a closed one. It
 * ends its side after the response and still reads: a request that reaches it on that socket is
 * counted (and recorded) as received, and never answered.
 */
export type ConnectionBehaviour = "keep-alive" | "close-after-response";

export async function startReferenceServer(options: {
  port?: number;
  host?: string;
  models: ModelSpec[];
  apiKey?: string;
  /** Count every chat request's user message in `prompts` (tests of "nothing is sent twice"). */
  recordPrompts?: boolean;
  /** Default `keep-alive`. */
  connections?: ConnectionBehaviour;
  /**
   * Seeds the words written above temperature 0: the k-th answer of a model to a prompt is drawn from
   * (seed, model, prompt, k), so the answers to a prompt are the same set however requests interleave.
   * Default: unseeded (`Math.random`).
   */
  seed?: number;
}): Promise<ReferenceServer> {
  const counts: ServerCounts = { requests: 0, connections: 0 };
  const closeAfterResponse = options.connections === "close-after-response";
  const prompts = new Map<string, number>();
  const requests: ReceivedRequest[] = [];
  const served = new Map<string, Served>();
  const gateways = new Map<string, Extract<ModelSpec, { kind: "gateway" }>>();
  const counters = new Map<string, number>();
  const serve = (profile: StreamProfile): Served => ({
    engine: new Engine(profile),
    profile,
    ...(profile.prefixCache ? { cache: new PrefixCache(profile.prefixCache, profile.charsPerPromptToken) } : {}),
    arrived: 0,
    serving: 0,
  });
  for (const spec of options.models) {
    if (spec.kind === "model") served.set(spec.id, serve(spec.profile));
    else {
      gateways.set(spec.id, spec);
      for (const p of spec.providers) served.set(`${spec.id}/${p.name}`, serve(p.profile));
    }
  }
  /**
   * Counts a chat request's user message in `prompts` and keeps its messages in `requests` (with
   * `recordPrompts`); `body` parsed or not. Returns the record, for the counts once it is served.
   */
  const recordPrompt = (body: unknown): ReceivedRequest | undefined => {
    if (!options.recordPrompts) return;
    let parsed = body;
    if (typeof body === "string")
      try {
        parsed = JSON.parse(body);
      } catch {
        return;
      }
    const messages = (parsed as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(messages)) return;
    const prompt = messages.map((m) => String((m as { content?: unknown }).content ?? "")).join("\n");
    prompts.set(prompt, (prompts.get(prompt) ?? 0) + 1);
    const record: ReceivedRequest = {
      model: String((parsed as { model?: unknown }).model ?? ""),
      messages: messages.map((m) => ({
        role: String((m as { role?: unknown }).role ?? ""),
        content: String((m as { content?: unknown }).content ?? ""),
      })),
      promptTokens: null,
      cachedTokens: null,
    };
    if (requests.length < MAX_TIMINGS) requests.push(record);
    return record;
  };
  /** Answers drawn so far per (model, prompt), for the seeded draws. */
  const answers = new Map<string, number>();
  /** The random source of one answer: the k-th answer of a model to a prompt draws from (seed, model, prompt, k). */
  const answerRandom = (model: string, prompt: string): (() => number) => {
    if (options.seed === undefined) return Math.random;
    const key = `${model}\u0000${prompt}`;
    const k = answers.get(key) ?? 0;
    answers.set(key, k + 1);
    if (answers.size > 100_000) answers.clear();
    return seededRandom(hashText(`${options.seed}\u0000${key}\u0000${k}`));
  };
  /** The words of one answer above temperature 0 (null at temperature 0: " tok" tokens). */
  const wordsOf = (model: string, body: Record<string, unknown>, profile: StreamProfile, count: number) => {
    if (!(Number(body.temperature ?? 1) > 0)) return null;
    const prompt = messageText(body.messages);
    return drawWords(prompt, count, answerRandom(model, prompt), profile.distortion);
  };
  const toolAnswers: ToolAnswerRecord[] = [];
  let toolRefusals = 0;
  let tailFailures = 0;
  const fallbacks: ReferenceServer["fallbacks"] = [];
  const open = new Set<ServerResponse>();
  let timings: ResponseTiming[] = [];

  const handle = (
    _req: IncomingMessage,
    res: ServerResponse,
    body: Record<string, unknown>,
    arrivedAtMs: number,
    record?: ReceivedRequest,
  ) => {
    const model = String(body.model ?? "");
    let target = served.get(model);
    let provider: string | null = null;
    let fellBack = false;
    const gateway = gateways.get(model);
    if (gateway) {
      const order = (body.provider as { order?: string[] } | undefined)?.order;
      const pinned = order?.[0] ?? gateway.defaultProvider;
      const entry = gateway.providers.find((p) => p.name.toLowerCase() === pinned.toLowerCase());
      if (!entry) return error(res, 404, `no provider ${pinned} for ${model}`);
      const n = (counters.get(entry.name) ?? 0) + 1;
      counters.set(entry.name, n);
      provider = entry.name;
      // The pin is honoured except every k-th request, to exercise verification.
      if (entry.fallbackEvery && n % entry.fallbackEvery === 0) {
        const other = gateway.providers.find((p) => p !== entry);
        if (other) {
          provider = other.name;
          fellBack = true;
          fallbacks.push({ model, pinned: entry.name, served: other.name });
        }
      }
      target = served.get(`${model}/${provider}`);
    }
    if (!target) return error(res, 404, `The model ${model} does not exist`);
    target.arrived++;
    const refused = refusal(target);
    if (refused) return error(res, refused.status, "refused by the reference profile", refused.headers);
    const retryAfter = takeToken(target);
    if (retryAfter !== null) return error(res, 429, "rate limit reached", { "retry-after": String(retryAfter) });
    if (target.profile.tools?.refuse && Array.isArray(body.tools)) {
      toolRefusals++;
      return error(res, 400, "tools are not supported by this model");
    }
    // A hanging endpoint: the response stays open until the client gives up or the server closes.
    if (target.profile.stall) return;
    const tail = target.profile.slowTail;
    const tailDelayMs = tail ? (tail.delaysMs[(target.arrived - 1) % tail.period] ?? 0) : 0;
    if (tail?.giveUpAfterMs !== undefined && tailDelayMs >= tail.giveUpAfterMs) {
      tailFailures++;
      const timer = setTimeout(() => error(res, 504, "upstream timed out before its first token"), tail.giveUpAfterMs);
      res.on("close", () => clearTimeout(timer));
      return;
    }
    const counted = target;
    counted.serving++;
    res.on("close", () => counted.serving--);

    const { engine, profile } = target;
    const fault = profile.midStream && target.arrived % profile.midStream.every === 0 ? profile.midStream : null;
    /** A broken stream writes nothing more (`stall`: the response stays open). */
    let broken = false;
    const maxTokens = Math.max(1, Number(body.max_tokens ?? body.max_completion_tokens ?? 128) | 0);
    const promptTokens = promptTokensOf(body.messages, profile.charsPerPromptToken);
    // The cache is looked up as the request arrives and filled once its prefill is done (its first token).
    const text = target.cache ? promptText(body.messages) : "";
    const cachedTokens = target.cache?.lookup(text, promptTokens) ?? 0;
    const cache = target.cache;
    let prefilled = false;
    if (record) {
      record.promptTokens = promptTokens;
      record.cachedTokens = cache ? cachedTokens : null;
    }
    const stream = body.stream === true;
    const includeUsage =
      (profile.sendUsage ?? true) &&
      (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const perChunk = Math.max(1, profile.tokensPerChunk ?? 1);
    const id = `chatcmpl-ref-${Math.random().toString(36).slice(2, 10)}`;
    const created = Math.floor(Date.now() / 1000);
    const extra = provider ? { provider } : {};
    const headers: Record<string, string> = gateway
      ? { "x-litellm-attempted-fallbacks": fellBack ? "1" : "0", "x-litellm-model-id": provider ?? "" }
      : {};
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, ...extra, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

    /** This response's timing, kept (while there is room) for the tests that read the server's log. */
    const startTiming = (): ResponseTiming => {
      const timing: ResponseTiming = {
        responseId: id,
        arrivedAtMs,
        firstTokenAtMs: null,
        lastTokenAtMs: null,
        tokens: 0,
        maxTokens,
        promptTokens,
        cachedTokens: cache ? cachedTokens : null,
        prompt: options.recordPrompts ? promptText(body.messages) : null,
      };
      if (stream && timings.length < MAX_TIMINGS) timings.push(timing);
      return timing;
    };

    if (isToolRequest(body)) {
      // The tool path (./tools.ts): one delta per engine token, then the finish chunk; no reasoning. A
      // `midStream` fault breaks it as it breaks text: after `afterTokens` deltas, a stall or an error event.
      const random = answerRandom(`${model}\u0000tools`, promptText(body.messages));
      const plan = planToolAnswer(body, { profile: profile.tools, random });
      const deltas = toolDeltas(plan, { profile: profile.tools, random });
      const sent: Record<string, unknown>[] = [];
      const tokens = Math.min(deltas.length, maxTokens);
      const toolTiming = startTiming();
      let ended = false;
      let logged = false;
      let splitEvents = 0;
      /** Logs the answer once: what was sent, with the finish reason (null: the client went away first). */
      const log = (finishReason: string | null) => {
        const a = assembleDeltas(sent);
        if (logged) return a;
        logged = true;
        const answer: ToolAnswerRecord = {
          model,
          promptId: plan.promptId,
          breakages: plan.breakages,
          calls: a.calls,
          content: a.content,
          finishReason,
          argumentsAsObject: a.argumentsAsObject,
          splitEvents,
        };
        if (toolAnswers.length < MAX_TIMINGS) toolAnswers.push(answer);
        return a;
      };
      const toolSeq: Sequence = {
        promptTokens,
        cachedTokens,
        maxTokens: tokens,
        generated: 0,
        emit(token) {
          if (!prefilled) {
            prefilled = true;
            cache?.insert(text);
          }
          if (broken) return;
          const delta = deltas[token - 1] as Record<string, unknown>;
          sent.push(delta);
          if (!stream) return;
          const event = chunk(delta, null);
          const pieces = profile.tools?.splitMultibyte ? splitInsideCharacter(event) : [event];
          if (pieces.length > 1) splitEvents++;
          for (const piece of pieces) res.write(piece);
          const at = epochMs();
          toolTiming.firstTokenAtMs ??= at;
          toolTiming.lastTokenAtMs = at;
          toolTiming.tokens = token;
          if (fault && token >= fault.afterTokens && token < tokens) {
            broken = true;
            if (fault.fault === "error") {
              log("error");
              res.end(
                `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, ...extra, error: { code: 502, message: "Provider returned error", metadata: { raw: "the reference engine failed mid-stream" } }, choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }] })}\n\ndata: [DONE]\n\n`,
              );
            }
          }
        },
        done() {
          if (broken) {
            ended = true;
            engine.stats.change(-1);
            return;
          }
          ended = true;
          engine.stats.change(-1);
          // Cut by max_tokens: what was sent, with finish reason "length".
          const finish = sent.length < deltas.length ? "length" : plan.finishReason;
          const a = log(finish);
          const usage = usageOf({ ...profile, reasoning: undefined }, promptTokens, tokens, cachedTokens);
          if (!stream) {
            const message = toolMessage({ ...plan, calls: a.calls, content: a.content } as ToolAnswerPlan);
            return res.end(
              JSON.stringify({
                id,
                object: "chat.completion",
                created,
                model,
                ...extra,
                choices: [{ index: 0, message, finish_reason: finish }],
                usage,
              }),
            );
          }
          res.write(chunk({}, finish));
          if (includeUsage)
            res.write(
              `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, ...extra, choices: [], usage })}\n\n`,
            );
          res.end("data: [DONE]\n\n");
        },
      };
      res.on("close", () => {
        if (ended) return;
        ended = true;
        log(null);
        engine.cancel(toolSeq);
        engine.stats.change(-1);
      });
      engine.stats.change(1);
      res.writeHead(200, {
        "content-type": stream ? "text/event-stream" : "application/json",
        "cache-control": "no-cache",
        ...headers,
      });
      if (stream) res.flushHeaders();
      engine.submit(toolSeq);
      return;
    }
    engine.stats.change(1);
    const words = wordsOf(model, body, profile, maxTokens);
    /** The text of tokens from..to (1-based, inclusive): " tok" each, or the answer's words. */
    const textOf = (from: number, to: number) =>
      words
        ? words
            .slice(from - 1, to)
            .map((w) => ` ${w}`)
            .join("")
        : " tok".repeat(to - from + 1);
    const reasoningTokens = reasoningTokensOf(profile, maxTokens);
    const reasoningField = profile.reasoning?.field ?? "reasoning";
    const timing = startTiming();
    let pending = 0;
    const seq: Sequence = {
      promptTokens,
      cachedTokens,
      maxTokens,
      generated: 0,
      emit(token) {
        if (!prefilled) {
          prefilled = true;
          cache?.insert(text);
        }
        if (!stream || broken) return;
        pending++;
        // A chunk never mixes reasoning and answer: the last reasoning token closes its chunk.
        if (pending === perChunk || token === maxTokens || token === reasoningTokens) {
          const field = token <= reasoningTokens ? reasoningField : "content";
          res.write(chunk({ [field]: textOf(token - pending + 1, token) }, token === maxTokens ? "length" : null));
          // Taken after the write returns: the chunk is in the socket (or its buffer) by then.
          const at = epochMs();
          timing.firstTokenAtMs ??= at;
          timing.lastTokenAtMs = at;
          timing.tokens = token;
          pending = 0;
        }
        if (fault && token >= fault.afterTokens) {
          broken = true;
          if (fault.fault === "error")
            res.end(
              `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, ...extra, error: { code: 502, message: "Provider returned error", metadata: { raw: "the reference engine failed mid-stream" } }, choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }] })}\n\ndata: [DONE]\n\n`,
            );
        }
      },
      done() {
        if (broken) {
          engine.stats.change(-1);
          finished = true;
          return;
        }
        finished = true;
        engine.stats.change(-1);
        const usage = usageOf(profile, promptTokens, maxTokens, cachedTokens);
        if (!stream) {
          return res.end(
            JSON.stringify({
              id,
              object: "chat.completion",
              created,
              model,
              ...extra,
              choices: [
                {
                  index: 0,
                  message: {
                    role: "assistant",
                    content: textOf(reasoningTokens + 1, maxTokens),
                    ...(reasoningTokens > 0 ? { [reasoningField]: textOf(1, reasoningTokens) } : {}),
                  },
                  finish_reason: "length",
                },
              ],
              usage,
            }),
          );
        }
        if (includeUsage)
          res.write(
            `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, ...extra, choices: [], usage })}\n\n`,
          );
        res.end("data: [DONE]\n\n");
      },
    };
    let finished = false;
    res.on("close", () => {
      if (finished) return;
      finished = true;
      engine.cancel(seq);
      engine.stats.change(-1);
    });
    res.writeHead(200, {
      "content-type": stream ? "text/event-stream" : "application/json",
      "cache-control": "no-cache",
      ...headers,
    });
    if (stream) {
      res.flushHeaders();
      if (profile.roleChunk) res.write(chunk({ role: "assistant", content: "" }, null));
    }
    if (tailDelayMs > 0) {
      const timer = setTimeout(() => engine.submit(seq), tailDelayMs);
      res.on("close", () => clearTimeout(timer));
    } else engine.submit(seq);
  };

  /** Sockets the server has ended after a response (close-after-response): still read, never answered on. */
  const closing = new WeakSet<object>();
  const server = createServer((req, res) => {
    const arrivedAtMs = epochMs();
    counts.requests++;
    res.setHeader(SIMULATED_HEADER, "reference");
    const socket = req.socket;
    if (closing.has(socket)) {
      // As llama.cpp does: the request on a connection being closed is read (and logged), never
      // answered; the socket dies. A client that sends it again has sent it twice.
      req.setEncoding("utf8");
      let text = "";
      req.on("data", (d: string) => {
        text += d;
      });
      req.on("end", () => {
        recordPrompt(text);
        socket.destroy();
      });
      return;
    }
    if (closeAfterResponse) {
      // Headers set here join every response's own: the advertised keep-alive is not kept. The
      // server ends its side after the response and reads on until the socket closes.
      res.setHeader("connection", "keep-alive");
      res.setHeader("keep-alive", "timeout=5, max=100");
      res.on("finish", () => {
        closing.add(socket);
        socket.end();
      });
    }
    open.add(res);
    res.on("close", () => open.delete(res));
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`)
      return error(res, 401, "invalid API key");
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "GET" && path === "/v1/models") {
      const data = options.models.map((m) => ({
        id: m.id,
        object: "model",
        created: 0,
        owned_by: "kneeboard-reference",
      }));
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data }));
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions")
      return error(res, 404, `no route ${req.method} ${path}`);
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => {
      text += d;
      if (text.length > 1_000_000) req.destroy();
    });
    req.on("end", () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text);
      } catch {
        return error(res, 400, "body is not JSON");
      }
      handle(req, res, body, arrivedAtMs, recordPrompt(body));
    });
  });
  server.on("connection", () => counts.connections++);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}/v1`,
    port,
    fallbacks,
    prompts,
    requests,
    toolAnswers,
    get tailFailures() {
      return tailFailures;
    },
    get toolRefusals() {
      return toolRefusals;
    },
    counts: () => ({ ...counts }),
    takeTimings() {
      const taken = timings;
      timings = [];
      return taken;
    },
    engine(id) {
      const entry = served.get(id);
      if (!entry) throw new Error(`no model ${id}`);
      return entry.engine;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of served.values()) s.engine.stop();
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
