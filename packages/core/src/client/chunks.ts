/** @module What a response comes to: parsed chunks applied to the result; failed responses mapped by `openai`'s errors. */
import type { IncomingMessage } from "node:http";
import { APIError } from "openai/error";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { FirstTokenWatch } from "./health.ts";
import type { RawResult } from "./result.ts";
import type { SseSink } from "./sse.ts";
import { applyToolCallDeltas } from "./tool-call-deltas.ts";

/** Usage as gateways report it: OpenRouter adds `cost` (USD). */
interface GatewayUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  /** Anthropic's spelling of cached prompt tokens, passed through by some gateways (LiteLLM). */
  cache_read_input_tokens?: number | null;
  /** DeepSeek's spelling of cached prompt tokens. */
  prompt_cache_hit_tokens?: number | null;
  cost?: number | null;
}

/** The cached prompt tokens a usage reports, in whichever spelling its API uses; null when none. */
export function cachedTokensOf(usage: GatewayUsage): number | null {
  for (const value of [
    usage.prompt_tokens_details?.cached_tokens,
    usage.cache_read_input_tokens,
    usage.prompt_cache_hit_tokens,
  ])
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
  return null;
}

/** Chunks as gateways send them: OpenRouter adds a top-level `provider`; a mid-stream failure comes as `error`. */
export type GatewayChunk = Omit<ChatCompletionChunk, "usage"> & {
  provider?: string;
  usage?: GatewayUsage | null;
  error?: unknown;
};

/** The delta fields read: answer content and the two spellings of reasoning content. */
interface Delta {
  content?: string | null;
  reasoning?: string | null;
  reasoning_content?: string | null;
  tool_calls?: unknown;
}

/** The result fields a stream's chunks fill. */
export type ChunkFields = Pick<
  RawResult,
  | "contentChunks"
  | "text"
  | "firstAnswerMs"
  | "completionTokens"
  | "promptTokens"
  | "reasoningTokens"
  | "cachedPromptTokens"
  | "answerText"
  | "costUsd"
  | "finishReason"
  | "responseId"
  | "toolCalls"
  | "argumentsAsObject"
>;

/**
 * Reads one stream's events into its result: content and reasoning chunks with the time of the read
 * they came in, usage, the finish reason, the response id, and the first chunk that named who served
 * it. A mid-stream error (an `error` event, or a chunk with `error`) and malformed data go to `broken`.
 */
export class ChunkReader implements SseSink {
  /** Clock ms of the socket read being parsed: every chunk in one read arrived together. */
  readAtMs = 0;
  /** The first chunk that named anything (OpenRouter's `provider`, or the `model`): route verification reads it. */
  namingChunk: GatewayChunk | undefined = undefined;

  constructor(
    private readonly result: ChunkFields,
    private readonly broken: (error: string) => void,
    private readonly firstToken?: FirstTokenWatch,
  ) {}

  event(data: unknown, type: string | null): void {
    // A chunk is a JSON object; `data: null` or a bare number would otherwise throw in the socket's handler.
    if (typeof data !== "object" || data === null) {
      this.broken(`malformed SSE data: a chunk must be a JSON object, not ${JSON.stringify(data)}`);
      return;
    }
    const chunk = data as GatewayChunk;
    if (type === "error" || (chunk.error !== undefined && chunk.error !== null))
      this.broken(`stream error: ${providerMessage(chunk.error ?? chunk)}`);
    else if (chunk.choices?.[0]?.finish_reason === ("error" as string))
      // OpenRouter ends a stream the provider failed with `finish_reason: "error"`.
      this.broken("stream error: the stream finished with finish_reason error");
    else this.apply(chunk);
  }

  malformed(error: string): void {
    this.broken(error);
  }

  /** Applies one chunk, read at `readAtMs`, to the result. */
  apply(chunk: GatewayChunk): void {
    const result = this.result;
    result.responseId ??= chunk.id ?? null;
    if (!this.namingChunk && (chunk.provider !== undefined || chunk.model)) this.namingChunk = chunk;
    const choice = chunk.choices?.[0];
    if (choice) {
      const delta = choice.delta as Delta | undefined;
      if (delta) {
        const answer = delta.content?.length ?? 0;
        const chars = answer + (delta.reasoning_content?.length ?? delta.reasoning?.length ?? 0);
        if (chars > 0) {
          if (result.contentChunks.length === 0) this.firstToken?.firstTokenRead();
          result.contentChunks.push({ tMs: this.readAtMs, chars });
        }
        if (answer > 0 && result.firstAnswerMs === null) result.firstAnswerMs = this.readAtMs;
        // Kept only when asked for (the canary): reasoning first, as a chunk carries it before its answer.
        if (result.text !== undefined && chars > 0)
          result.text += (delta.reasoning_content ?? delta.reasoning ?? "") + (delta.content ?? "");
        if (answer > 0 && result.answerText !== undefined) result.answerText += delta.content;
        // Only a request that offered tools reads their deltas: a plain chunk pays one field test.
        if (result.toolCalls !== undefined && delta.tool_calls) applyToolCallDeltas(result, delta.tool_calls);
      }
      if (choice.finish_reason) result.finishReason = choice.finish_reason;
    }
    const usage = chunk.usage;
    if (usage) {
      result.completionTokens = usage.completion_tokens ?? null;
      result.promptTokens = usage.prompt_tokens ?? null;
      result.reasoningTokens = usage.completion_tokens_details?.reasoning_tokens ?? null;
      result.cachedPromptTokens = cachedTokensOf(usage);
      result.costUsd = typeof usage.cost === "number" ? usage.cost : null;
    }
  }
}

/**
 * The provider's own words of a mid-stream error (`{ message, code }` as OpenRouter sends them, with
 * the upstream provider's message under `metadata.raw` when there is one), else the error as JSON.
 */
function providerMessage(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const e = error as { message?: unknown; code?: unknown; metadata?: { raw?: unknown; provider_name?: unknown } };
    if (typeof e.message === "string") {
      const code = e.code !== undefined ? ` (code ${String(e.code)})` : "";
      const raw = typeof e.metadata?.raw === "string" ? `: ${e.metadata.raw}` : "";
      return `${e.message}${code}${raw}`;
    }
  }
  return JSON.stringify(error);
}

/** Parses `retry-after` (seconds or an HTTP date) into seconds. */
export function parseRetryAfter(value: string | null | undefined, nowMs = Date.now()): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - nowMs) / 1000);
}

/** What a failed response (status outside 2xx) comes to. */
export interface FailedResponse {
  outcome: "rate_limited" | "http_error";
  httpStatus: number;
  retryAfterSeconds: number | null;
  /** `HTTP <status>: ` and the message `openai`'s own calls would give (its taxonomy, from the body). */
  error: string;
}

/** Maps a failed response's status, headers and body text the way the `openai` SDK does for its non-streaming calls. */
export function failedResponse(
  status: number,
  headers: IncomingMessage["headers"],
  body: string,
  nowMs = Date.now(),
): FailedResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  // The SDK's taxonomy gives the same messages (and classes) as its own non-streaming calls.
  const headersObject = new Headers();
  for (const [name, value] of Object.entries(headers)) if (typeof value === "string") headersObject.set(name, value);
  const error = APIError.generate(status, parsed as object | undefined, body || undefined, headersObject);
  const retryAfter = headers["retry-after"];
  return {
    outcome: status === 429 ? "rate_limited" : "http_error",
    httpStatus: status,
    retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter.join(", ") : retryAfter, nowMs),
    error: `HTTP ${status}: ${error.message}`,
  };
}

/** An error response's body is read up to this many characters: enough for any provider's message. */
const MAX_ERROR_BODY_CHARS = 64 * 1024;

/** Reads a failed response's body (up to 64k characters) and tells `done` once what it comes to, when it ends, errs or closes. */
export function readFailedResponse(res: IncomingMessage, done: (failure: FailedResponse) => void): void {
  let text = "";
  let told = false;
  res.setEncoding("utf8");
  res.on("data", (part: string) => {
    if (text.length < MAX_ERROR_BODY_CHARS) text += part;
  });
  const end = () => {
    if (told) return;
    told = true;
    done(failedResponse(res.statusCode ?? 0, res.headers, text));
  };
  res.on("end", end);
  res.on("error", end);
  res.on("close", end);
}
