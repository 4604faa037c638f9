/** @module The streaming client: `StreamingClient` and its public types; it runs sse, route, chunks and transport in sequence. */
import type { Agent as HttpAgent, IncomingMessage } from "node:http";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { Route } from "../route/index.ts";
import { onAbort, type Scheduler, systemScheduler, type Timer } from "../scheduler/index.ts";
import { ChunkReader, type FailedResponse, readFailedResponse } from "./chunks.ts";
import type { FirstTokenWatch } from "./health.ts";
import type { Outcome, RawResult } from "./result.ts";
import { headerReader, pinning, verifyRoute } from "./route.ts";
import { LineDecoder, SseDecoder } from "./sse.ts";
import { type Call, type CallListener, type CallStage, Transport } from "./transport.ts";

export { parseRetryAfter } from "./chunks.ts";
export type { RawResult } from "./result.ts";
export type { AssembledCall } from "./tool-call-deltas.ts";

/** The response header by which kneeboard's reference server says it is simulated (any value). */
export const SIMULATED_HEADER = "x-kneeboard-simulated";

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

/** One earlier message of a conversation, re-sent with every later turn. */
export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

export interface ChatRequest {
  /** The user message the request ends with (a conversation's new question). */
  prompt: string;
  /** A system message first (a conversation's shared system prompt); none when absent or empty. */
  system?: string;
  /** A conversation's earlier questions and answers, in order, between the system message and `prompt`. */
  history?: ChatMessage[];
  /** Keep the answer's text in `RawResult.answerText`: a conversation re-sends it with the next turn. */
  keepAnswer?: boolean;
  maxTokens: number;
  temperature: number;
  ignoreEos?: boolean;
  timeoutMs: number;
  /**
   * A streaming response with no byte for this long ends as `timeout`, ms (default none): a stream
   * that stops halfway and holds its connection open costs this, not the whole `timeoutMs`. Armed
   * when the response's head arrives.
   */
  idleTimeoutMs?: number;
  /** Aborts the request from outside (the sweep stopping); recorded as `network` with that reason. */
  signal?: AbortSignal;
  /** Told when the request's first content is read, or it ended without any (the client's health watch). */
  firstToken?: FirstTokenWatch;
  /** Keep the generated text in `RawResult.text` (the canary's completions); a sweep's requests keep none. */
  keepText?: boolean;
  /**
   * Function tools offered, sent as OpenAI `tools` with `tool_choice: "auto"` (none sent when empty).
   * With tools or a response schema the answer's text is kept (`answerText`) and its tool calls
   * assembled (`RawResult.toolCalls`).
   */
  tools?: FunctionTool[];
  /** A JSON schema the answer must follow: `response_format: { type: "json_schema", json_schema: { name, schema, strict: true } }`. */
  responseSchema?: { name: string; schema: Record<string, unknown> };
}

/** A function tool as offered: its name, what it does, and its parameters' JSON Schema. */
export interface FunctionTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
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

/** The request's body (JSON) and headers: the chat, the route's pinning, the key. */
function compose(endpoint: Endpoint, request: ChatRequest): { payload: string; headers: Record<string, string> } {
  const pin = pinning(endpoint.route);
  const body: StreamBody = {
    ...pin.body,
    model: endpoint.model,
    messages: [
      ...(request.system ? [{ role: "system" as const, content: request.system }] : []),
      ...(request.history ?? []),
      { role: "user", content: request.prompt },
    ],
    max_tokens: request.maxTokens,
    temperature: request.temperature,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.ignoreEos ? { ignore_eos: true } : {}),
    ...(request.tools && request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({ type: "function" as const, function: tool })),
          tool_choice: "auto" as const,
        }
      : {}),
    ...(request.responseSchema
      ? { response_format: { type: "json_schema" as const, json_schema: { ...request.responseSchema, strict: true } } }
      : {}),
  };
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = {
    ...pin.headers,
    "content-type": "application/json",
    accept: "text/event-stream",
    "user-agent": "kneeboard",
    "content-length": String(Buffer.byteLength(payload)),
    ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
  };
  return { payload, headers };
}

/** A result with nothing read yet. */
function emptyResult(startMs: number): RawResult {
  return {
    outcome: "incomplete",
    startMs,
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
    sends: 0,
    staleSockets: 0,
    staleSocketMs: null,
    connectMs: null,
    tlsMs: null,
  };
}

/** Replaces every occurrence of the key in a message, so no secret reaches a stored file or a log. */
function redact(message: string, apiKey: string | undefined): string {
  return apiKey ? message.split(apiKey).join("***") : message;
}

/**
 * One request from its send to its outcome: the timeout and the sweep's stop, the response (a
 * stream read through the line and event decoders into the chunk reader, or a failed response),
 * and the settling, once, whichever way it ends.
 */
class Exchange implements CallListener {
  readonly result: RawResult;
  settled = false;
  private timedOut = false;
  /** Why the stream was ended for going idle; null while it was not. */
  private idle: string | null = null;
  private idleTimer: Timer | undefined;
  /** Clock ms of the stream's last socket read (or its head). */
  private lastReadMs = 0;
  /** The response's head, once it came (a failed response's too). */
  private res: IncomingMessage | undefined;
  /** True once a 2xx response's stream is being read. */
  private streaming = false;
  private timer: Timer | undefined;
  private call: Call | undefined;
  private readonly chunks: ChunkReader;
  private readonly events: SseDecoder;
  private readonly lines: LineDecoder;
  /** Takes this request's callback off the outside signal (the signal keeps one listener for all). */
  private offAbort: (() => void) | undefined;
  private readonly onAbort = () => this.fail("network", "aborted: the sweep stopped");

  constructor(
    private readonly endpoint: Endpoint,
    private readonly request: ChatRequest,
    private readonly clock: Scheduler,
    private readonly resolve: (result: RawResult) => void,
  ) {
    this.result = emptyResult(clock.now());
    if (request.keepText) this.result.text = "";
    if (request.keepAnswer) this.result.answerText = "";
    if (request.tools !== undefined || request.responseSchema !== undefined) {
      this.result.answerText = "";
      this.result.toolCalls = [];
      this.result.argumentsAsObject = false;
    }
    this.chunks = new ChunkReader(this.result, (error) => this.fail("incomplete", error), request.firstToken);
    this.events = new SseDecoder(this.chunks);
    this.lines = new LineDecoder(this.events);
  }

  /** Makes the request, arms the timeout and the sweep's stop, and sends it. */
  start(call: Call): void {
    this.call = call;
    if (!call.open()) return;
    this.timer = this.clock.setTimer(() => {
      this.timedOut = true;
      this.fail("timeout", "");
    }, this.request.timeoutMs);
    const signal = this.request.signal;
    if (signal?.aborted) {
      this.onAbort();
      return;
    }
    if (signal) this.offAbort = onAbort(signal, this.onAbort);
    // The request's start is taken here, as it goes to the wire: with N requests built at once,
    // the work before this point would otherwise count as the provider's TTFT.
    this.result.startMs = this.clock.now();
    call.send(this.result.startMs);
  }

  mayResend(): boolean {
    return !this.timedOut && !this.request.signal?.aborted;
  }

  failed(stage: CallStage, message: string): void {
    if (stage === "send") this.settle("network", `request not sent: ${message}`);
    else if (stage === "connection") this.fail("network", `connection failed: ${message}`);
    else this.fail("incomplete", `stream broken: ${message}`);
  }

  response(res: IncomingMessage): void {
    this.res = res;
    if (res.headers[SIMULATED_HEADER] !== undefined) this.result.simulated = true;
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      readFailedResponse(res, (failure) => this.failedResponse(failure));
      return;
    }
    this.result.httpStatus = status;
    this.streaming = true;
    const { clock, chunks, lines } = this;
    this.lastReadMs = clock.now();
    this.armIdle();
    res.on("data", (bytes: Buffer) => {
      // One clock read per socket read: every chunk in it arrived together.
      chunks.readAtMs = clock.now();
      this.lastReadMs = chunks.readAtMs;
      lines.push(bytes);
    });
    res.on("end", () => this.finish());
    res.on("error", (error) => this.fail("incomplete", `stream broken: ${error.message}`));
    res.on("close", () => {
      if (!res.complete) this.fail("incomplete", "stream broken: connection closed mid-response");
    });
  }

  /**
   * Ends the stream once no byte came for `idleTimeoutMs`: one timer, re-armed for what is left when
   * it finds a read since (not one timer per read).
   */
  private armIdle(): void {
    const idleMs = this.request.idleTimeoutMs;
    if (idleMs === undefined || this.settled) return;
    this.idleTimer = this.clock.setTimer(
      () => {
        if (this.settled) return;
        const quietMs = this.clock.now() - this.lastReadMs;
        if (quietMs < idleMs) return this.armIdle();
        const tokens = this.result.contentChunks.length;
        this.idle = `stream went idle: no byte for ${idleMs / 1000} s after ${tokens} token${tokens === 1 ? "" : "s"} (content chunks)`;
        this.fail("timeout", this.idle);
      },
      Math.max(0, idleMs - (this.clock.now() - this.lastReadMs)),
    );
  }

  /** The stream ended: ok when it finished on the pinned route. */
  private finish(): void {
    this.lines.end();
    this.events.end();
    if (this.settled) return;
    if (this.result.finishReason === null) {
      this.settle("incomplete", "stream ended without a finish reason");
      return;
    }
    const { servedProvider, mismatch } = this.served();
    this.result.servedProvider = servedProvider;
    this.settle(mismatch ? "route_mismatch" : "ok", mismatch);
  }

  private failedResponse(failure: FailedResponse): void {
    if (this.settled) return;
    this.result.httpStatus = failure.httpStatus;
    this.result.retryAfterSeconds = failure.retryAfterSeconds;
    this.settle(failure.outcome, failure.error);
  }

  private served(): { servedProvider: string | null; mismatch: string | null } {
    return verifyRoute(this.endpoint.route, headerReader(this.res as IncomingMessage), this.chunks.namingChunk);
  }

  /** Why the request ended early when it did: the timeout, the sweep's stop, or the given failure. */
  private fail(outcome: Outcome, error: string): void {
    if (this.timedOut) this.settle("timeout", `request timed out after ${this.request.timeoutMs} ms`);
    else if (this.idle !== null) this.settle("timeout", this.idle);
    else if (this.request.signal?.aborted) this.settle("network", "aborted: the sweep stopped");
    else this.settle(outcome, error);
    this.call?.destroy();
  }

  private settle(outcome: Outcome, error: string | null): void {
    if (this.settled) return;
    this.settled = true;
    this.events.stop();
    this.timer?.cancel();
    this.idleTimer?.cancel();
    const { result, request } = this;
    if (result.contentChunks.length === 0) request.firstToken?.firstTokenRead();
    this.offAbort?.();
    result.outcome = outcome;
    result.error = error === null ? null : redact(error, this.endpoint.apiKey).slice(0, 500);
    // A stream that broke still names who served it; an error response (4xx, 5xx) names no one, as before.
    if (this.streaming && result.servedProvider === null) result.servedProvider = this.served().servedProvider;
    this.resolve(result);
  }
}

/**
 * A client bound to one endpoint: one chat completion at a time over `node:http`/`node:https` with a
 * keep-alive agent and a hand SSE line parser, measured and classified. This folder is the only
 * place in the core that imports `openai` (its request and chunk types, and its error taxonomy for
 * failed responses); the streaming path leaves the SDK's fetch and web streams, whose per-chunk cost
 * was several times a plain socket's. It never throws for a failed request: every way a request can
 * end becomes an `outcome`. No request is written twice: one whose reused keep-alive socket the
 * server had closed before a byte of it was written goes on a new connection, and once the origin
 * is seen to close connections after responses every request gets its own (docs/methodology.md,
 * connections). `agent` (with `baseURL`) and `scheduler` are injectable for tests.
 */
export class StreamingClient {
  private readonly transport: Transport;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly options: ClientOptions = {},
  ) {
    this.transport = new Transport(endpoint.baseURL, endpoint.ca, options.agent);
  }

  /** Sends one streaming request and measures it. Resolves for every outcome; never rejects. */
  send(request: ChatRequest): Promise<RawResult> {
    const clock = this.options.scheduler ?? systemScheduler;
    const { payload, headers } = compose(this.endpoint, request);
    return new Promise<RawResult>((resolve) => {
      const exchange = new Exchange(this.endpoint, request, clock, resolve);
      exchange.start(this.transport.call(payload, headers, exchange.result, clock, exchange));
    });
  }
}
