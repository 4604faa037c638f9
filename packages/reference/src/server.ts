/**
 * @module The reference targets over HTTP: OpenAI-compatible `/v1/chat/completions` (stream and not)
 * and `/v1/models`, plus an OpenRouter-like gateway front that honours `provider.order`. A chat request
 * is routed to its engine (./routing.ts), admitted or turned away by its profile (./admission.ts), and
 * answered (./answer.ts) through the response writer (./writer.ts); the server keeps its own log (./log.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SIMULATED_HEADER } from "@kneeboard/core/client";
import { type AdmissionTally, admit } from "./admission.ts";
import { answerChat } from "./answer.ts";
import { answerDraws } from "./draws.ts";
import type { Engine } from "./engine.ts";
import {
  type AnswerLog,
  epochMs,
  type ReceivedRequest,
  type ResponseTiming,
  receivedLog,
  type ToolAnswerRecord,
} from "./log.ts";
import { modelsOf, routeChat } from "./routing.ts";
import type { ModelSpec } from "./stream-profile.ts";
import { writeError } from "./writer.ts";

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
  const models = modelsOf(options.models);
  const received = receivedLog(options.recordPrompts === true);
  const log: AnswerLog = { timings: [], toolAnswers: [] };
  const tally: AdmissionTally = { toolRefusals: 0, tailFailures: 0 };
  const answerer = { log, recordPrompts: options.recordPrompts === true, ...answerDraws(options.seed) };
  const open = new Set<ServerResponse>();

  /** A chat request's body, parsed: routed to its engine, admitted by its profile, answered. */
  const handle = (
    res: ServerResponse,
    body: Record<string, unknown>,
    arrivedAtMs: number,
    record?: ReceivedRequest,
  ) => {
    const model = String(body.model ?? "");
    const route = routeChat(models, model, body);
    if ("notFound" in route) return writeError(res, 404, route.notFound);
    const admission = admit(route.target, body, tally);
    if (admission.verdict === "refused") return writeError(res, admission.status, admission.message, admission.headers);
    if (admission.verdict === "held") return;
    if (admission.verdict === "given_up") {
      const timer = setTimeout(
        () => writeError(res, 504, "upstream timed out before its first token"),
        admission.afterMs,
      );
      res.on("close", () => clearTimeout(timer));
      return;
    }
    const counted = route.target;
    counted.serving++;
    res.on("close", () => counted.serving--);
    answerChat({ res, body, model, route, tailDelayMs: admission.tailDelayMs, arrivedAtMs, record }, answerer);
  };

  const closing = options.connections === "close-after-response" ? closingConnections(received.record) : null;
  const server = createServer((req, res) => {
    const arrivedAtMs = epochMs();
    counts.requests++;
    res.setHeader(SIMULATED_HEADER, "reference");
    if (closing?.(req, res)) return;
    open.add(res);
    res.on("close", () => open.delete(res));
    routeHttp(req, res, options, (body) => handle(res, body, arrivedAtMs, received.record(body)));
  });
  server.on("connection", () => counts.connections++);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}/v1`,
    port,
    fallbacks: models.fallbacks,
    prompts: received.prompts,
    requests: received.requests,
    toolAnswers: log.toolAnswers,
    get tailFailures() {
      return tally.tailFailures;
    },
    get toolRefusals() {
      return tally.toolRefusals;
    },
    counts: () => ({ ...counts }),
    takeTimings() {
      const taken = log.timings;
      log.timings = [];
      return taken;
    },
    engine(id) {
      const entry = models.served.get(id);
      if (!entry) throw new Error(`no model ${id}`);
      return entry.engine;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of models.served.values()) s.engine.stop();
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * `close-after-response`, as llama.cpp's server keeps connections: every response advertises
 * keep-alive, and the server ends its side after it. Returns the listener's first step: true for a
 * request that reached a connection being closed, which is read (and recorded), never answered.
 */
function closingConnections(record: (body: unknown) => unknown) {
  /** Sockets the server has ended after a response: still read, never answered on. */
  const closing = new WeakSet<object>();
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const socket = req.socket;
    if (closing.has(socket)) {
      // The request on a connection being closed is read (and logged), never answered; the socket
      // dies. A client that sends it again has sent it twice.
      req.setEncoding("utf8");
      let text = "";
      req.on("data", (d: string) => {
        text += d;
      });
      req.on("end", () => {
        record(text);
        socket.destroy();
      });
      return true;
    }
    // Headers set here join every response's own: the advertised keep-alive is not kept. The
    // server ends its side after the response and reads on until the socket closes.
    res.setHeader("connection", "keep-alive");
    res.setHeader("keep-alive", "timeout=5, max=100");
    res.on("finish", () => {
      closing.add(socket);
      socket.end();
    });
    return false;
  };
}

/**
 * The HTTP routes: the API key checked, `GET /v1/models` listed, `POST /v1/chat/completions` read
 * and parsed for `chat`; anything else 404.
 */
function routeHttp(
  req: IncomingMessage,
  res: ServerResponse,
  server: { apiKey?: string; models: readonly ModelSpec[] },
  chat: (body: Record<string, unknown>) => void,
): void {
  if (server.apiKey && req.headers.authorization !== `Bearer ${server.apiKey}`) {
    writeError(res, 401, "invalid API key");
    return;
  }
  const path = (req.url ?? "").split("?")[0];
  if (req.method === "GET" && path === "/v1/models") {
    const data = server.models.map((m) => ({
      id: m.id,
      object: "model",
      created: 0,
      owned_by: "kneeboard-reference",
    }));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data }));
    return;
  }
  if (req.method !== "POST" || path !== "/v1/chat/completions") {
    writeError(res, 404, `no route ${req.method} ${path}`);
    return;
  }
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
      writeError(res, 400, "body is not JSON");
      return;
    }
    chat(body);
  });
}
