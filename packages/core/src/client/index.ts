/**
 * @module The streaming client: one chat completion over `node:http`/`node:https` with a keep-alive
 * agent and a hand SSE line parser (./sse.ts), measured and classified. This folder is the only place in the
 * core that imports `openai` (its request and chunk types, and in ./chunks.ts its error taxonomy for failed responses); the
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
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { Route } from "../config/index.ts";
import type { Outcome } from "../run/index.ts";
import { type Scheduler, systemScheduler, type Timer } from "../scheduler/index.ts";
import { ChunkReader, readFailedResponse } from "./chunks.ts";
import type { FirstTokenWatch } from "./health.ts";
import { headerReader, pinning, verifyRoute } from "./route.ts";
import { LineDecoder, SseDecoder } from "./sse.ts";

export { parseRetryAfter } from "./chunks.ts";

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

/**
 * The errors Node gives a request whose reused keep-alive socket the server had closed before it
 * could read the request (`req.reusedSocket`, docs of `http.ClientRequest`): a reset or a hang-up
 * (both ECONNRESET), or EPIPE when the write itself found the socket closed.
 */
const STALE_SOCKET_CODES = new Set(["ECONNRESET", "EPIPE"]);

/** Replaces every occurrence of the key in a message, so no secret reaches a stored file or a log. */
function redact(message: string, apiKey: string | undefined): string {
  return apiKey ? message.split(apiKey).join("***") : message;
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
      let timer: Timer | undefined;

      const settle = (outcome: Outcome, error: string | null) => {
        if (settled) return;
        settled = true;
        events.stop();
        timer?.cancel();
        if (result.contentChunks.length === 0) request.firstToken?.firstTokenRead();
        if (request.signal) this.aborts.get(request.signal)?.delete(onAbort);
        result.outcome = outcome;
        result.error = error === null ? null : redact(error, apiKey).slice(0, 500);
        // A stream that broke still names who served it; an error response (4xx, 5xx) names no one, as before.
        if (streaming && response && result.servedProvider === null)
          result.servedProvider = verifyRoute(route, headerReader(response), chunks.namingChunk).servedProvider;
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

      const chunks = new ChunkReader(result, (error) => fail("incomplete", error), request.firstToken);
      const events = new SseDecoder(chunks);
      const lines = new LineDecoder(events);

      const finish = () => {
        lines.end();
        events.end();
        if (settled) return;
        if (result.finishReason === null) return settle("incomplete", "stream ended without a finish reason");
        const { servedProvider, mismatch } = verifyRoute(
          route,
          headerReader(response as IncomingMessage),
          chunks.namingChunk,
        );
        result.servedProvider = servedProvider;
        settle(mismatch ? "route_mismatch" : "ok", mismatch);
      };

      const onResponse = (res: IncomingMessage) => {
        response = res;
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300)
          return readFailedResponse(res, (failure) => {
            if (settled) return;
            result.httpStatus = failure.httpStatus;
            result.retryAfterSeconds = failure.retryAfterSeconds;
            settle(failure.outcome, failure.error);
          });
        result.httpStatus = status;
        streaming = true;
        res.on("data", (bytes: Buffer) => {
          // One clock read per socket read: every chunk in it arrived together.
          chunks.readAtMs = clock.now();
          lines.push(bytes);
        });
        res.on("end", finish);
        res.on("error", (error) => fail("incomplete", `stream broken: ${error.message}`));
        res.on("close", () => {
          if (!res.complete) fail("incomplete", "stream broken: connection closed mid-response");
        });
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
