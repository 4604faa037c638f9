/**
 * @module The streaming client: one chat completion through the `openai` SDK, measured and classified.
 * This is the only file of the core that imports `openai`. It never throws for a failed request:
 * every way a request can end becomes an `outcome`.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { Route } from "../config/index.ts";
import type { Outcome } from "../run/index.ts";

/** A monotonic clock in ms (default: `performance.now`). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => performance.now() };

/** Where and how to send: the resolved target (the key already read from its secret). */
export interface Endpoint {
  baseURL: string;
  apiKey?: string;
  model: string;
  route: Route;
}

export interface ChatRequest {
  prompt: string;
  maxTokens: number;
  temperature: number;
  ignoreEos?: boolean;
  timeoutMs: number;
  /** Aborts the request from outside (the sweep stopping); recorded as `network` with that reason. */
  signal?: AbortSignal;
}

/** What one request produced, before the per-sample figures are derived. Times are clock ms. */
export interface RawResult {
  outcome: Outcome;
  startMs: number;
  /** Arrival time and character count of every chunk with non-empty content or reasoning. */
  contentChunks: { tMs: number; chars: number }[];
  /** Arrival time of the first chunk with non-empty answer content (not reasoning); null when none came. */
  firstAnswerMs: number | null;
  completionTokens: number | null;
  promptTokens: number | null;
  /** `usage.completion_tokens_details.reasoning_tokens`; null when not reported. */
  reasoningTokens: number | null;
  /** `usage.prompt_tokens_details.cached_tokens`; null when not reported. */
  cachedPromptTokens: number | null;
  /** `usage.cost` in USD, where a gateway meters it (OpenRouter); null when not reported. */
  costUsd: number | null;
  finishReason: string | null;
  responseId: string | null;
  servedProvider: string | null;
  httpStatus: number | null;
  retryAfterSeconds: number | null;
  error: string | null;
}

/** The streaming chat body plus the gateway fields the SDK does not type. */
type StreamBody = ChatCompletionCreateParamsStreaming & {
  provider?: { order: string[]; allow_fallbacks: boolean };
  disable_fallbacks?: boolean;
  ignore_eos?: boolean;
};

/** A header naming the request to the fetch wrapper; removed before anything is sent. */
const REQUEST_MARK = "x-kneeboard-request-mark";

/** Chunks as gateways send them: OpenRouter adds a top-level `provider`. */
type GatewayChunk = ChatCompletionChunk & { provider?: string };

/** Parses `retry-after` (seconds or an HTTP date) into seconds. */
export function parseRetryAfter(value: string | null | undefined, nowMs = Date.now()): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - nowMs) / 1000);
}

/** Reads a dotted path (`a.b.c`) out of a JSON value. */
function fieldAt(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const sameName = (a: string | null | undefined, b: string | null | undefined) =>
  a != null && b != null && a.toLowerCase() === b.toLowerCase();

/** The body fields and headers that pin the route (SPEC section 4). */
function pinning(route: Route): { body: Record<string, unknown>; headers: Record<string, string> } {
  switch (route.gateway) {
    case "openrouter":
      return { body: { provider: { order: [route.provider], allow_fallbacks: false } }, headers: {} };
    case "litellm":
      return { body: { disable_fallbacks: true }, headers: { "x-litellm-num-retries": "0" } };
    case "custom":
      return { body: route.body ?? {}, headers: route.headers ?? {} };
    default:
      return { body: {}, headers: {} };
  }
}

/**
 * Which provider served the request and whether that matches the pin. `chunk` is the first chunk
 * that named anything (OpenRouter's `provider`, or the response `model` for direct routes).
 */
function verifyRoute(
  route: Route,
  headers: Headers,
  chunk: GatewayChunk | undefined,
): { servedProvider: string | null; mismatch: string | null } {
  switch (route.gateway) {
    case "openrouter": {
      const served = chunk?.provider ?? null;
      if (sameName(served, route.provider)) return { servedProvider: served, mismatch: null };
      return {
        servedProvider: served,
        mismatch: `served by ${served ?? "an unnamed provider"}, pinned to ${route.provider}`,
      };
    }
    case "litellm": {
      const served = headers.get("x-litellm-model-id");
      const fallbacks = headers.get("x-litellm-attempted-fallbacks");
      if (fallbacks !== null && fallbacks !== "0")
        return { servedProvider: served, mismatch: `gateway attempted ${fallbacks} fallbacks` };
      if (route.deployment && !sameName(served, route.deployment))
        return {
          servedProvider: served,
          mismatch: `served by deployment ${served ?? "unknown"}, pinned to ${route.deployment}`,
        };
      return { servedProvider: served ?? route.provider ?? null, mismatch: null };
    }
    case "custom": {
      const verify = route.verify;
      if (!verify) return { servedProvider: null, mismatch: null };
      const seen = "header" in verify ? headers.get(verify.header) : fieldAt(chunk, verify.bodyField);
      const served = seen == null ? null : String(seen);
      return {
        servedProvider: served,
        mismatch: served === verify.equals ? null : `served by ${served ?? "unknown"}, expected ${verify.equals}`,
      };
    }
    default:
      return { servedProvider: chunk?.model ?? null, mismatch: null };
  }
}

/** Replaces every occurrence of the key in a message, so no secret reaches a stored file or a log. */
function redact(message: string, apiKey: string | undefined): string {
  return apiKey ? message.split(apiKey).join("***") : message;
}

/** A client bound to one endpoint. `fetch` and `clock` are injectable for tests. */
export class StreamingClient {
  private readonly sdk: OpenAI;
  /** Per request: a callback that takes the time the request goes to `fetch`. */
  private readonly onFetch = new Map<string, () => void>();
  private nextRequest = 0;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly options: { clock?: Clock; fetch?: typeof fetch } = {},
  ) {
    const inner = options.fetch ?? fetch;
    this.sdk = new OpenAI({
      baseURL: endpoint.baseURL,
      // The SDK refuses an empty key; local servers without auth accept any value.
      apiKey: endpoint.apiKey ?? "no-key",
      maxRetries: 0,
      logLevel: "off",
      // The request's start is taken here, as it goes to the wire: with N requests built at once,
      // the SDK's own work before this point would otherwise count as the provider's TTFT.
      fetch: (url, init) => {
        const headers = new Headers(init?.headers);
        const id = headers.get(REQUEST_MARK);
        if (id === null) return inner(url, init);
        headers.delete(REQUEST_MARK);
        this.onFetch.get(id)?.();
        return inner(url, { ...init, headers });
      },
    });
  }

  /** Sends one streaming request and measures it. Resolves for every outcome; never rejects. */
  async send(request: ChatRequest): Promise<RawResult> {
    const clock = this.options.clock ?? systemClock;
    const { route, model, apiKey } = this.endpoint;
    const pin = pinning(route);
    const timeout = AbortSignal.timeout(request.timeoutMs);
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
    const body: StreamBody = {
      ...pin.body,
      model,
      messages: [{ role: "user", content: request.prompt }],
      max_tokens: request.maxTokens,
      temperature: request.temperature,
      stream: true,
      stream_options: { include_usage: true },
      ...(request.ignoreEos ? { ignore_eos: true } : {}),
    };
    const result: RawResult = {
      outcome: "incomplete",
      startMs: clock.now(),
      contentChunks: [],
      firstAnswerMs: null,
      completionTokens: null,
      promptTokens: null,
      reasoningTokens: null,
      cachedPromptTokens: null,
      costUsd: null,
      finishReason: null,
      responseId: null,
      servedProvider: null,
      httpStatus: null,
      retryAfterSeconds: null,
      error: null,
    };
    let headers: Headers | undefined;
    let namingChunk: GatewayChunk | undefined;
    const mark = String(this.nextRequest++);
    this.onFetch.set(mark, () => {
      result.startMs = clock.now();
    });
    try {
      const { data: stream, response } = await this.sdk.chat.completions
        .create(body, { headers: { ...pin.headers, [REQUEST_MARK]: mark }, signal, timeout: request.timeoutMs })
        .withResponse();
      headers = response.headers;
      result.httpStatus = response.status;
      for await (const chunk of stream as AsyncIterable<GatewayChunk>) {
        const tMs = clock.now();
        result.responseId ??= chunk.id ?? null;
        if (!namingChunk && (chunk.provider !== undefined || chunk.model)) namingChunk = chunk;
        const choice = chunk.choices?.[0];
        if (choice) {
          const delta = choice.delta as
            | { content?: string | null; reasoning?: string | null; reasoning_content?: string | null }
            | undefined;
          const chars =
            (delta?.content?.length ?? 0) + (delta?.reasoning_content?.length ?? delta?.reasoning?.length ?? 0);
          if (chars > 0) result.contentChunks.push({ tMs, chars });
          if (result.firstAnswerMs === null && (delta?.content?.length ?? 0) > 0) result.firstAnswerMs = tMs;
          if (choice.finish_reason) result.finishReason = choice.finish_reason;
        }
        if (chunk.usage) {
          result.completionTokens = chunk.usage.completion_tokens ?? null;
          result.promptTokens = chunk.usage.prompt_tokens ?? null;
          Object.assign(result, usageExtras(chunk.usage));
        }
      }
      if (timeout.aborted) {
        result.outcome = "timeout";
        result.error = `no end of stream within ${request.timeoutMs} ms`;
      } else if (request.signal?.aborted) {
        result.outcome = "network";
        result.error = "aborted: the sweep stopped";
      } else if (result.finishReason === null) {
        result.outcome = "incomplete";
        result.error = "stream ended without a finish reason";
      } else {
        const { servedProvider, mismatch } = verifyRoute(route, headers, namingChunk);
        result.servedProvider = servedProvider;
        result.outcome = mismatch ? "route_mismatch" : "ok";
        result.error = mismatch;
      }
    } catch (error) {
      const status = result.httpStatus;
      Object.assign(
        result,
        classifyError(error, {
          timedOut: timeout.aborted,
          aborted: request.signal?.aborted === true,
          started: headers !== undefined,
        }),
      );
      if (headers) {
        result.httpStatus = status;
        result.servedProvider = verifyRoute(route, headers, namingChunk).servedProvider;
      }
    }
    this.onFetch.delete(mark);
    if (result.error) result.error = redact(result.error, apiKey);
    return result;
  }
}

/** A finite number, or null: a field the server left out or sent malformed is not reported. */
const numberOrNull = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;

/** The usage fields beyond the token counts; each null when the server did not send it. */
function usageExtras(usage: unknown): Pick<RawResult, "reasoningTokens" | "cachedPromptTokens" | "costUsd"> {
  return {
    reasoningTokens: numberOrNull(fieldAt(usage, "completion_tokens_details.reasoning_tokens")),
    cachedPromptTokens: numberOrNull(fieldAt(usage, "prompt_tokens_details.cached_tokens")),
    costUsd: numberOrNull(fieldAt(usage, "cost")),
  };
}

/** Maps a thrown error to an outcome: HTTP status first, then timeout, then the stream's state. */
function classifyError(
  error: unknown,
  state: { timedOut: boolean; aborted: boolean; started: boolean },
): Pick<RawResult, "outcome" | "httpStatus" | "retryAfterSeconds" | "error"> {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof APIError && typeof error.status === "number") {
    const retryAfter = parseRetryAfter(error.headers?.get("retry-after"));
    return {
      outcome: error.status === 429 ? "rate_limited" : "http_error",
      httpStatus: error.status,
      retryAfterSeconds: retryAfter,
      error: `HTTP ${error.status}: ${message}`.slice(0, 500),
    };
  }
  if (state.timedOut || error instanceof APIConnectionTimeoutError) {
    return { outcome: "timeout", httpStatus: null, retryAfterSeconds: null, error: "request timed out" };
  }
  if (state.aborted)
    return { outcome: "network", httpStatus: null, retryAfterSeconds: null, error: "aborted: the sweep stopped" };
  // Once the response has begun, a failure is a broken stream; before it, the connection never worked.
  if (state.started) {
    const kind = error instanceof SyntaxError ? "malformed SSE data" : "stream broken";
    return {
      outcome: "incomplete",
      httpStatus: null,
      retryAfterSeconds: null,
      error: `${kind}: ${message}`.slice(0, 500),
    };
  }
  const cause = error instanceof APIConnectionError && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return { outcome: "network", httpStatus: null, retryAfterSeconds: null, error: `${message}${cause}`.slice(0, 500) };
}
