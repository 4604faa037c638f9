/**
 * @module A served chat request's answer: one sequence on its model's engine, each generated token
 * written through the response writer as it comes (text, reasoning, or tool-call deltas), a
 * `midStream` fault breaking it, the prefix cache filled once prefilled, and the server's log kept.
 */
import type { ServerResponse } from "node:http";
import type { Sequence } from "./engine.ts";
import {
  type AnswerLog,
  epochMs,
  MAX_TIMINGS,
  type ReceivedRequest,
  type ResponseTiming,
  type ToolAnswerRecord,
} from "./log.ts";
import type { Route } from "./routing.ts";
import { reasoningTokensOf, type StreamProfile, usageOf } from "./stream-profile.ts";
import {
  assembleDeltas,
  isToolRequest,
  planToolAnswer,
  splitInsideCharacter,
  type ToolAnswerPlan,
  toolDeltas,
  toolMessage,
} from "./tools.ts";
import { ChatWriter } from "./writer.ts";

/** What answering needs of the server: its log, and the words and random draws of its answers. */
export interface Answerer {
  log: AnswerLog;
  recordPrompts: boolean;
  /** The random source of one answer (seeded per model and prompt when the server is). */
  answerRandom(model: string, prompt: string): () => number;
  /** The words of one answer above temperature 0 (null at temperature 0: " tok" tokens). */
  wordsOf(model: string, body: Record<string, unknown>, profile: StreamProfile, count: number): string[] | null;
}

/** One admitted request. */
export interface Admitted {
  res: ServerResponse;
  body: Record<string, unknown>;
  model: string;
  route: Route;
  /** A slow tail's wait before the engine takes it, ms. */
  tailDelayMs: number;
  arrivedAtMs: number;
  /** Its record in the server's log of received requests (`recordPrompts`). */
  record?: ReceivedRequest;
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
export function messageText(messages: unknown): string {
  return Array.isArray(messages)
    ? messages.map((m) => String((m as { content?: unknown }).content ?? "")).join(" ")
    : "";
}

/** Prompt tokens of the messages as this model counts them: one per `charsPerPromptToken` characters (default 4). */
function promptTokensOf(messages: unknown, charsPerPromptToken = 4): number {
  return Math.max(1, Math.ceil(messageText(messages).length / charsPerPromptToken));
}

/** What both kinds of answer share: the request's sizes, its cache hit, its fault, its writer and its timing. */
interface Answering {
  request: Admitted;
  profile: StreamProfile;
  fault: StreamProfile["midStream"] | null;
  maxTokens: number;
  promptTokens: number;
  cachedTokens: number;
  /** Fills the prefix cache with the prompt, once: at the first token, when its prefill is done. */
  prefilled(): void;
  includeUsage: boolean;
  writer: ChatWriter;
  /** The headers a gateway adds (LiteLLM's fallback headers). */
  headers: Record<string, string>;
  /** This response's timing, kept (while there is room) for the tests that read the server's log. */
  startTiming(): ResponseTiming;
}

/** Answers an admitted request: tool calls for a tool request, else text. */
export function answerChat(request: Admitted, answerer: Answerer): void {
  const { body, model, route, record } = request;
  const { target } = route;
  const { profile } = target;
  const fault = profile.midStream && target.arrived % profile.midStream.every === 0 ? profile.midStream : null;
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
  const id = `chatcmpl-ref-${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  const extra = route.provider ? { provider: route.provider } : {};
  const headers: Record<string, string> = route.viaGateway
    ? { "x-litellm-attempted-fallbacks": route.fellBack ? "1" : "0", "x-litellm-model-id": route.provider ?? "" }
    : {};
  const answering: Answering = {
    request,
    profile,
    fault,
    maxTokens,
    promptTokens,
    cachedTokens,
    prefilled() {
      if (prefilled) return;
      prefilled = true;
      cache?.insert(text);
    },
    includeUsage,
    writer: new ChatWriter(request.res, { id, created, model, extra }, stream),
    headers,
    startTiming() {
      const timing: ResponseTiming = {
        responseId: id,
        arrivedAtMs: request.arrivedAtMs,
        firstTokenAtMs: null,
        lastTokenAtMs: null,
        tokens: 0,
        maxTokens,
        promptTokens,
        cachedTokens: cache ? cachedTokens : null,
        prompt: answerer.recordPrompts ? promptText(body.messages) : null,
      };
      if (stream && answerer.log.timings.length < MAX_TIMINGS) answerer.log.timings.push(timing);
      return timing;
    },
  };
  if (isToolRequest(body)) answerTools(answering, answerer);
  else answerText(answering, answerer);
}

/**
 * The tool path (./tools.ts): one delta per engine token, then the finish chunk; no reasoning. A
 * `midStream` fault breaks it as it breaks text: after `afterTokens` deltas, a stall or an error event.
 */
function answerTools(a: Answering, answerer: Answerer): void {
  const { request, profile, fault, writer } = a;
  const { res, body, model } = request;
  const { engine } = request.route.target;
  const random = answerer.answerRandom(`${model}\u0000tools`, promptText(body.messages));
  const plan = planToolAnswer(body, { profile: profile.tools, random });
  const deltas = toolDeltas(plan, { profile: profile.tools, random });
  const sent: Record<string, unknown>[] = [];
  const tokens = Math.min(deltas.length, a.maxTokens);
  const toolTiming = a.startTiming();
  /** A broken stream writes nothing more (`stall`: the response stays open). */
  let broken = false;
  let ended = false;
  let logged = false;
  let splitEvents = 0;
  /** Logs the answer once: what was sent, with the finish reason (null: the client went away first). */
  const log = (finishReason: string | null) => {
    const assembled = assembleDeltas(sent);
    if (logged) return assembled;
    logged = true;
    const answer: ToolAnswerRecord = {
      model,
      promptId: plan.promptId,
      breakages: plan.breakages,
      calls: assembled.calls,
      content: assembled.content,
      finishReason,
      argumentsAsObject: assembled.argumentsAsObject,
      splitEvents,
    };
    if (answerer.log.toolAnswers.length < MAX_TIMINGS) answerer.log.toolAnswers.push(answer);
    return assembled;
  };
  const toolSeq: Sequence = {
    promptTokens: a.promptTokens,
    cachedTokens: a.cachedTokens,
    maxTokens: tokens,
    generated: 0,
    emit(token) {
      a.prefilled();
      if (broken) return;
      const delta = deltas[token - 1] as Record<string, unknown>;
      sent.push(delta);
      if (!writer.stream) return;
      const event = writer.frame(delta, null);
      const pieces = profile.tools?.splitMultibyte ? splitInsideCharacter(event) : [event];
      if (pieces.length > 1) splitEvents++;
      for (const piece of pieces) writer.write(piece);
      const at = epochMs();
      toolTiming.firstTokenAtMs ??= at;
      toolTiming.lastTokenAtMs = at;
      toolTiming.tokens = token;
      if (fault && token >= fault.afterTokens && token < tokens) {
        broken = true;
        if (fault.fault === "error") {
          log("error");
          writer.failMidStream();
        }
      }
    },
    done() {
      ended = true;
      engine.stats.change(-1);
      if (broken) return;
      // Cut by max_tokens: what was sent, with finish reason "length".
      const finish = sent.length < deltas.length ? "length" : plan.finishReason;
      const assembled = log(finish);
      const usage = usageOf({ ...profile, reasoning: undefined }, a.promptTokens, tokens, a.cachedTokens);
      if (!writer.stream) {
        const message = toolMessage({ ...plan, calls: assembled.calls, content: assembled.content } as ToolAnswerPlan);
        return writer.completion(message, finish, usage);
      }
      writer.chunk({}, finish);
      if (a.includeUsage) writer.usage(usage);
      writer.done();
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
  writer.open(a.headers);
  engine.submit(toolSeq);
}

/** The text path: reasoning tokens first (in the profile's field), then the answer, `tokensPerChunk` a chunk. */
function answerText(a: Answering, answerer: Answerer): void {
  const { request, profile, fault, writer, maxTokens } = a;
  const { res, body, model } = request;
  const { engine } = request.route.target;
  engine.stats.change(1);
  const perChunk = Math.max(1, profile.tokensPerChunk ?? 1);
  const words = answerer.wordsOf(model, body, profile, maxTokens);
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
  const timing = a.startTiming();
  /** A broken stream writes nothing more (`stall`: the response stays open). */
  let broken = false;
  let finished = false;
  let pending = 0;
  const seq: Sequence = {
    promptTokens: a.promptTokens,
    cachedTokens: a.cachedTokens,
    maxTokens,
    generated: 0,
    emit(token) {
      a.prefilled();
      if (!writer.stream || broken) return;
      pending++;
      // A chunk never mixes reasoning and answer: the last reasoning token closes its chunk.
      if (pending === perChunk || token === maxTokens || token === reasoningTokens) {
        const field = token <= reasoningTokens ? reasoningField : "content";
        writer.chunk({ [field]: textOf(token - pending + 1, token) }, token === maxTokens ? "length" : null);
        // Taken after the write returns: the chunk is in the socket (or its buffer) by then.
        const at = epochMs();
        timing.firstTokenAtMs ??= at;
        timing.lastTokenAtMs = at;
        timing.tokens = token;
        pending = 0;
      }
      if (fault && token >= fault.afterTokens) {
        broken = true;
        if (fault.fault === "error") writer.failMidStream();
      }
    },
    done() {
      finished = true;
      engine.stats.change(-1);
      if (broken) return;
      const usage = usageOf(profile, a.promptTokens, maxTokens, a.cachedTokens);
      if (!writer.stream) {
        const message = {
          role: "assistant",
          content: textOf(reasoningTokens + 1, maxTokens),
          ...(reasoningTokens > 0 ? { [reasoningField]: textOf(1, reasoningTokens) } : {}),
        };
        return writer.completion(message, "length", usage);
      }
      if (a.includeUsage) writer.usage(usage);
      writer.done();
    },
  };
  res.on("close", () => {
    if (finished) return;
    finished = true;
    engine.cancel(seq);
    engine.stats.change(-1);
  });
  writer.open(a.headers);
  if (writer.stream && profile.roleChunk) writer.chunk({ role: "assistant", content: "" }, null);
  if (request.tailDelayMs > 0) {
    const timer = setTimeout(() => engine.submit(seq), request.tailDelayMs);
    res.on("close", () => clearTimeout(timer));
  } else engine.submit(seq);
}
