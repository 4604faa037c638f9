/**
 * @module The streaming client: one chat completion over `node:http`/`node:https` with a keep-alive
 * agent and a hand SSE line parser, measured and classified. This is the only file of the core that
 * imports `openai` (its request and chunk types, and its error taxonomy for failed responses); the
 * streaming path leaves the SDK's fetch and web streams, whose per-chunk cost was several times a
 * plain socket's. It never throws for a failed request: every way a request can end becomes an `outcome`.
 * A request whose reused keep-alive socket the server had already closed is sent again once, on a
 * new connection (docs/methodology.md, connections): the server never read it.
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  type RequestOptions as HttpRequestOptions,
  request as httpRequest,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { APIError } from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { Route } from "../route/index.ts";
import type { Outcome } from "../run/index.ts";
import { type Scheduler, systemScheduler, type Timer } from "../scheduler/index.ts";
import type { FirstTokenWatch } from "./health.ts";

/** Where and how to send: the resolved target (the key already read from its secret). */
export interface Endpoint {
  baseURL: string;
  apiKey?: string;
  model: string;
  route: Route;
  /**
   * PEM CA certificate(s) an `https:` endpoint's certificate must chain to, in place of Node's
   * default CAs (a test's self-signed CA). Without it Node's own store is used, `NODE_EXTRA_CA_CERTS`
   * included. Verification is never turned off.
   */
  ca?: string;
}

export interface ChatRequest {
  prompt: string;
  maxTokens: number;
  temperature: number;
  ignoreEos?: boolean;
  timeoutMs: number;
  /** Aborts the request from outside (the sweep stopping); recorded as `network` with that reason. */
  signal?: AbortSignal;
  /** Told when the request's first content is read, or it ended without any (the client's health watch). */
  firstToken?: FirstTokenWatch;
}

/** What one request produced, before the per-sample figures are derived. Times are clock ms. */
export interface RawResult {
  outcome: Outcome;
  startMs: number;
  /** Arrival time and character count of every chunk with non-empty content or reasoning. */
  contentChunks: { tMs: number; chars: number }[];
  /** Arrival time of the first chunk with non-empty answer `content` (reasoning does not count); null when none came. */
  firstAnswerMs: number | null;
  completionTokens: number | null;
  promptTokens: number | null;
  /** `usage.completion_tokens_details.reasoning_tokens`; null when not reported. */
  reasoningTokens: number | null;
  /** `usage.prompt_tokens_details.cached_tokens`; null when not reported. */
  cachedPromptTokens: number | null;
  /** `usage.cost` in USD where the gateway meters it (OpenRouter); null when not reported. */
  costUsd: number | null;
  finishReason: string | null;
  responseId: string | null;
  servedProvider: string | null;
  httpStatus: number | null;
  retryAfterSeconds: number | null;
  error: string | null;
  /**
   * The connection that carried the request (after a re-send, the re-send's): `new` when opened for
   * it, `reused` when kept alive from an earlier request; null when no socket was assigned.
   */
  connection: "new" | "reused" | null;
  /** Reused sockets found already closed by the server before any response byte (0 or 1: one re-send at most). */
  staleSockets: number;
  /** Clock ms from the send to the re-send on a new connection: what the stale socket cost, inside TTFT; null when none. */
  staleSocketMs: number | null;
  /** Clock ms from the send (or re-send) to the TCP connection up, DNS lookup included; null when reused. */
  connectMs: number | null;
  /** Clock ms from the TCP connection to the TLS handshake done; null when reused or not TLS. */
  tlsMs: number | null;
}

/**
 * How requests reach the wire: a keep-alive agent (an `https.Agent` for `https:` base URLs). Tests
 * and the bench inject one (or point `baseURL` at a local server); the default is one per client.
 * An injected agent's own TLS options do not reach the one-off connection of a re-send after a
 * stale socket: a CA to trust goes in `Endpoint.ca`.
 */
export interface ClientOptions {
  /** Where times and the request timeout come from (default: the system scheduler). */
  scheduler?: Scheduler;
  agent?: HttpAgent;
}

/** The streaming chat body plus the gateway fields the SDK does not type. */
type StreamBody = ChatCompletionCreateParamsStreaming & {
  provider?: { order: string[]; allow_fallbacks: boolean };
  disable_fallbacks?: boolean;
  ignore_eos?: boolean;
};

/** Usage as gateways report it: OpenRouter adds `cost` (USD). */
interface GatewayUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  cost?: number | null;
}

/** Chunks as gateways send them: OpenRouter adds a top-level `provider`; a mid-stream failure comes as `error`. */
type GatewayChunk = Omit<ChatCompletionChunk, "usage"> & {
  provider?: string;
  usage?: GatewayUsage | null;
  error?: unknown;
};

/** The delta fields read: answer content and the two spellings of reasoning content. */
interface Delta {
  content?: string | null;
  reasoning?: string | null;
  reasoning_content?: string | null;
}

/** Reads one response header (lowercase name) as a string, or null. */
type HeaderReader = (name: string) => string | null;

/**
 * The errors Node gives a request whose reused keep-alive socket the server had closed before it
 * could read the request (`req.reusedSocket`, docs of `http.ClientRequest`): a reset or a hang-up
 * (both ECONNRESET), or EPIPE when the write itself found the socket closed.
 */
const STALE_SOCKET_CODES = new Set(["ECONNRESET", "EPIPE"]);

/** An error response's body is read up to this many characters: enough for any provider's message. */
const MAX_ERROR_BODY_CHARS = 64 * 1024;

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

/** The body fields and headers that pin the route. */
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
  header: HeaderReader,
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
      const served = header("x-litellm-model-id");
      const fallbacks = header("x-litellm-attempted-fallbacks");
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
      const seen = "header" in verify ? header(verify.header.toLowerCase()) : fieldAt(chunk, verify.bodyField);
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

function headerReader(res: IncomingMessage): HeaderReader {
  return (name) => {
    const value = res.headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  };
}

/**
 * A hand SSE line parser: `data:` lines joined per event, an event dispatched at each blank line;
 * comments, `id:` and `retry:` lines skipped. Text comes decoded (the response's UTF-8 decoder keeps
 * multi-byte characters whole across reads); a line split across reads waits in `rest`.
 */
class SseParser {
  private rest = "";
  private data: string | null = null;
  private event: string | null = null;

  constructor(private readonly onEvent: (data: string, event: string | null) => void) {}

  /** Parses one read; `onEvent` runs for every complete event in it. */
  push(text: string): void {
    const buffer = this.rest.length > 0 ? this.rest + text : text;
    let from = 0;
    let newline = buffer.indexOf("\n", from);
    while (newline !== -1) {
      const end = newline > from && buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      if (end === from) this.dispatch();
      else if (buffer.startsWith("data:", from)) {
        const begin = buffer.charCodeAt(from + 5) === 32 ? from + 6 : from + 5;
        const line = buffer.slice(begin, end);
        this.data = this.data === null ? line : `${this.data}\n${line}`;
      } else if (buffer.startsWith("event:", from)) this.event = buffer.slice(from + 6, end).trim();
      from = newline + 1;
      newline = buffer.indexOf("\n", from);
    }
    this.rest = from === buffer.length ? "" : buffer.slice(from);
  }

  /** The stream ended: an event still open (no closing blank line) is dispatched as it stands. */
  end(): void {
    if (this.rest.length > 0) this.push("\n");
    this.dispatch();
  }

  private dispatch(): void {
    const data = this.data;
    const event = this.event;
    this.data = null;
    this.event = null;
    if (data !== null) this.onEvent(data, event);
  }
}

/** A client bound to one endpoint. `agent` (with `baseURL`) and `scheduler` are injectable for tests. */
export class StreamingClient {
  private readonly url: URL;
  private readonly agent: HttpAgent;
  private readonly send_: typeof httpRequest;
  private readonly secure: boolean;
  /** One listener per outside signal, shared by every request it aborts (N requests, one sweep signal). */
  private readonly aborts = new WeakMap<AbortSignal, Set<() => void>>();

  constructor(
    private readonly endpoint: Endpoint,
    private readonly options: ClientOptions = {},
  ) {
    const base = endpoint.baseURL.endsWith("/") ? endpoint.baseURL : `${endpoint.baseURL}/`;
    this.url = new URL("chat/completions", base);
    const secure = this.url.protocol === "https:";
    this.secure = secure;
    this.send_ = secure ? httpsRequest : httpRequest;
    this.agent =
      options.agent ??
      (secure
        ? new HttpsAgent({ keepAlive: true, ...(endpoint.ca ? { ca: endpoint.ca } : {}) })
        : new HttpAgent({ keepAlive: true }));
  }

  /** The callbacks an outside signal's abort runs; its one listener is added on first use. */
  private onAbort(signal: AbortSignal): Set<() => void> {
    let callbacks = this.aborts.get(signal);
    if (!callbacks) {
      const set = new Set<() => void>();
      callbacks = set;
      this.aborts.set(signal, set);
      signal.addEventListener(
        "abort",
        () => {
          for (const callback of set) callback();
        },
        { once: true },
      );
    }
    return callbacks;
  }

  /** Sends one streaming request and measures it. Resolves for every outcome; never rejects. */
  send(request: ChatRequest): Promise<RawResult> {
    const clock = this.options.scheduler ?? systemScheduler;
    const { route, model, apiKey } = this.endpoint;
    const pin = pinning(route);
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
    const payload = JSON.stringify(body);
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
      connection: null,
      staleSockets: 0,
      staleSocketMs: null,
      connectMs: null,
      tlsMs: null,
    };
    const headers: Record<string, string> = {
      ...pin.headers,
      "content-type": "application/json",
      accept: "text/event-stream",
      "user-agent": "kneeboard",
      "content-length": String(Buffer.byteLength(payload)),
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    };

    return new Promise<RawResult>((resolve) => {
      let settled = false;
      let timedOut = false;
      let response: IncomingMessage | undefined;
      let streaming = false;
      let namingChunk: GatewayChunk | undefined;
      let readAtMs = 0;
      let timer: Timer | undefined;

      const settle = (outcome: Outcome, error: string | null) => {
        if (settled) return;
        settled = true;
        timer?.cancel();
        if (result.contentChunks.length === 0) request.firstToken?.firstTokenRead();
        if (request.signal) this.aborts.get(request.signal)?.delete(onAbort);
        result.outcome = outcome;
        result.error = error === null ? null : redact(error, apiKey).slice(0, 500);
        // A stream that broke still names who served it; an error response (4xx, 5xx) names no one, as before.
        if (streaming && response && result.servedProvider === null)
          result.servedProvider = verifyRoute(route, headerReader(response), namingChunk).servedProvider;
        resolve(result);
      };
      /** Why the request ended early when it did: the timeout, the sweep's stop, or the given failure. */
      const fail = (outcome: Outcome, error: string) => {
        if (timedOut) settle("timeout", `request timed out after ${request.timeoutMs} ms`);
        else if (request.signal?.aborted) settle("network", "aborted: the sweep stopped");
        else settle(outcome, error);
        req?.destroy();
      };
      const onAbort = () => fail("network", "aborted: the sweep stopped");

      const onChunk = (chunk: GatewayChunk) => {
        result.responseId ??= chunk.id ?? null;
        if (!namingChunk && (chunk.provider !== undefined || chunk.model)) namingChunk = chunk;
        const choice = chunk.choices?.[0];
        if (choice) {
          const delta = choice.delta as Delta | undefined;
          if (delta) {
            const answer = delta.content?.length ?? 0;
            const chars = answer + (delta.reasoning_content?.length ?? delta.reasoning?.length ?? 0);
            if (chars > 0) {
              if (result.contentChunks.length === 0) request.firstToken?.firstTokenRead();
              result.contentChunks.push({ tMs: readAtMs, chars });
            }
            if (answer > 0 && result.firstAnswerMs === null) result.firstAnswerMs = readAtMs;
          }
          if (choice.finish_reason) result.finishReason = choice.finish_reason;
        }
        const usage = chunk.usage;
        if (usage) {
          result.completionTokens = usage.completion_tokens ?? null;
          result.promptTokens = usage.prompt_tokens ?? null;
          result.reasoningTokens = usage.completion_tokens_details?.reasoning_tokens ?? null;
          result.cachedPromptTokens = usage.prompt_tokens_details?.cached_tokens ?? null;
          result.costUsd = typeof usage.cost === "number" ? usage.cost : null;
        }
      };

      let done = false;
      const parser = new SseParser((data, event) => {
        if (done || settled) return;
        if (data.startsWith("[DONE]")) {
          done = true;
          return;
        }
        let chunk: GatewayChunk;
        try {
          chunk = JSON.parse(data) as GatewayChunk;
        } catch (error) {
          return fail("incomplete", `malformed SSE data: ${(error as Error).message}`);
        }
        if (event === "error" || (chunk.error !== undefined && chunk.error !== null))
          return fail("incomplete", `stream error: ${JSON.stringify(chunk.error ?? chunk)}`);
        onChunk(chunk);
      });

      const finish = () => {
        parser.end();
        if (settled) return;
        if (result.finishReason === null) return settle("incomplete", "stream ended without a finish reason");
        const { servedProvider, mismatch } = verifyRoute(route, headerReader(response as IncomingMessage), namingChunk);
        result.servedProvider = servedProvider;
        settle(mismatch ? "route_mismatch" : "ok", mismatch);
      };

      const onResponse = (res: IncomingMessage) => {
        response = res;
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) return onErrorResponse(res);
        result.httpStatus = status;
        streaming = true;
        res.setEncoding("utf8");
        res.on("data", (text: string) => {
          // One clock read per socket read: every chunk in it arrived together.
          readAtMs = clock.now();
          parser.push(text);
        });
        res.on("end", finish);
        res.on("error", (error) => fail("incomplete", `stream broken: ${error.message}`));
        res.on("close", () => {
          if (!res.complete) fail("incomplete", "stream broken: connection closed mid-response");
        });
      };

      const onErrorResponse = (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (part: string) => {
          if (text.length < MAX_ERROR_BODY_CHARS) text += part;
        });
        const settleError = () => {
          if (settled) return;
          const header = headerReader(res);
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          // The SDK's taxonomy gives the same messages (and classes) as its own non-streaming calls.
          const headersObject = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            if (typeof value === "string") headersObject.set(name, value);
          const error = APIError.generate(status, parsed as object | undefined, text || undefined, headersObject);
          result.httpStatus = status;
          result.retryAfterSeconds = parseRetryAfter(header("retry-after"));
          settle(status === 429 ? "rate_limited" : "http_error", `HTTP ${status}: ${error.message}`);
        };
        res.on("end", settleError);
        res.on("error", settleError);
        res.on("close", settleError);
      };

      let req: ClientRequest | undefined;
      /** When the request in `req` went to the wire (the send, or the re-send), clock ms. */
      let sentAtMs = 0;
      /** Bytes the socket had read before it carried `req`: more at a failure means the server answered. */
      let bytesReadBefore = 0;

      /** Records the connection `sent` got, and on a new one when its TCP (and TLS) handshake finished. */
      const onSocket = (sent: ClientRequest, socket: Socket) => {
        if (sent !== req) return;
        bytesReadBefore = socket.bytesRead;
        if (sent.reusedSocket) {
          result.connection = "reused";
          return;
        }
        result.connection = "new";
        if (!socket.connecting) return;
        socket.once("connect", () => {
          if (sent !== req) return;
          const connectedAtMs = clock.now();
          result.connectMs = connectedAtMs - sentAtMs;
          if (this.secure)
            socket.once("secureConnect", () => {
              if (sent === req) result.tlsMs = clock.now() - connectedAtMs;
            });
        });
      };

      /**
       * A reused socket that fails before reading a byte for this request was closed by the server
       * before the request reached it (the server keeps no connection after a response, or closed
       * it idle): the server never read it, so it goes again once, on a connection opened for it.
       */
      const isStale = (sent: ClientRequest, error: NodeJS.ErrnoException) =>
        sent.reusedSocket &&
        result.staleSockets === 0 &&
        STALE_SOCKET_CODES.has(error.code ?? "") &&
        (sent.socket?.bytesRead ?? bytesReadBefore) === bytesReadBefore;

      const open = (options: HttpRequestOptions): boolean => {
        let sent: ClientRequest;
        try {
          sent = this.send_(this.url, { method: "POST", headers, ...options }, onResponse);
        } catch (error) {
          // Invalid header values (a custom route's) throw before anything is sent.
          settle("network", `request not sent: ${(error as Error).message}`);
          return false;
        }
        req = sent;
        sent.on("socket", (socket: Socket) => onSocket(sent, socket));
        sent.on("error", (error: NodeJS.ErrnoException) => {
          if (sent !== req || settled) return;
          if (response) return fail("incomplete", `stream broken: ${error.message}`);
          if (!timedOut && !request.signal?.aborted && isStale(sent, error)) return resend();
          fail("network", `connection failed: ${error.message}`);
        });
        return true;
      };

      /**
       * The re-send goes on a one-off connection (`agent: false`, so it asks `Connection: close`),
       * not through the pool, whose other idle sockets may be as stale as the one that failed. The
       * CA goes with it: it is the pool agent's option, and this connection has no agent of ours.
       */
      const resend = () => {
        const now = clock.now();
        result.staleSockets++;
        result.staleSocketMs = now - result.startMs;
        result.connection = null;
        result.connectMs = null;
        result.tlsMs = null;
        if (!open({ agent: false, ...(this.endpoint.ca ? { ca: this.endpoint.ca } : {}) })) return;
        sentAtMs = now;
        req?.end(payload);
      };

      if (!open({ agent: this.agent })) return;
      timer = clock.setTimer(() => {
        timedOut = true;
        fail("timeout", "");
      }, request.timeoutMs);
      if (request.signal?.aborted) return onAbort();
      if (request.signal) this.onAbort(request.signal).add(onAbort);
      // The request's start is taken here, as it goes to the wire: with N requests built at once,
      // the work before this point would otherwise count as the provider's TTFT.
      result.startMs = clock.now();
      sentAtMs = result.startMs;
      req?.end(payload);
    });
  }
}
