/** @module The wire: the POST over node:http/https, its agents, connection timing, and the stale-socket re-send. */
import {
  type ClientRequest,
  Agent as HttpAgent,
  type RequestOptions as HttpRequestOptions,
  request as httpRequest,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import type { Clock } from "../scheduler/index.ts";
import type { RawResult } from "./index.ts";

/**
 * The errors Node gives a request whose reused keep-alive socket the server had closed before it
 * could read the request (`req.reusedSocket`, docs of `http.ClientRequest`): a reset or a hang-up
 * (both ECONNRESET), or EPIPE when the write itself found the socket closed.
 */
const STALE_SOCKET_CODES = new Set(["ECONNRESET", "EPIPE"]);

/** The result fields the wire fills: the connection that carried the request, its handshake, a stale socket's cost. */
export type ConnectionFields = Pick<
  RawResult,
  "startMs" | "connection" | "staleSockets" | "staleSocketMs" | "connectMs" | "tlsMs"
>;

/** Where a call's request broke: Node refused to make it (an invalid header value), before any response, or in the response. */
export type CallStage = "send" | "connection" | "stream";

/** What a call reports to: the request it carries. */
export interface CallListener {
  /** True once the request has ended: its call's errors are then ignored. */
  readonly settled: boolean;
  /** Whether a request met with a stale socket may go again (not once timed out or stopped). */
  mayResend(): boolean;
  /** The response's head arrived (any status). */
  response(res: IncomingMessage): void;
  /** The request broke at `stage`, with the error's message (`send`: synchronously, as the request was being made). */
  failed(stage: CallStage, message: string): void;
}

/**
 * One client's way to the wire: the URL, `http` or `https`, and a keep-alive agent (an `https.Agent`
 * trusting `ca` when given, for `https:` base URLs), or the one injected.
 */
export class Transport {
  readonly url: URL;
  readonly secure: boolean;
  readonly agent: HttpAgent;
  readonly request: typeof httpRequest;

  constructor(
    baseURL: string,
    readonly ca?: string,
    agent?: HttpAgent,
  ) {
    const base = baseURL.endsWith("/") ? baseURL : `${baseURL}/`;
    this.url = new URL("chat/completions", base);
    this.secure = this.url.protocol === "https:";
    this.request = this.secure ? httpsRequest : httpRequest;
    this.agent =
      agent ??
      (this.secure ? new HttpsAgent({ keepAlive: true, ...(ca ? { ca } : {}) }) : new HttpAgent({ keepAlive: true }));
  }

  /** A call carrying one request: its connection figures go into `fields`, what happens to it to `listener`. */
  call(
    payload: string,
    headers: Record<string, string>,
    fields: ConnectionFields,
    clock: Clock,
    listener: CallListener,
  ): Call {
    return new Call(this, payload, headers, fields, clock, listener);
  }
}

/**
 * One request on the wire: opened on the pool, sent, and, when its reused socket turns out stale,
 * sent again once on a connection opened for it.
 */
export class Call {
  /** The request now on the wire (after a re-send, the re-send's): events of an earlier one are ignored. */
  private req: ClientRequest | undefined;
  /** When `req` went to the wire (the send, or the re-send), clock ms. */
  private sentAtMs = 0;
  /** Bytes the socket had read before it carried `req`: more at a failure means the server answered. */
  private bytesReadBefore = 0;
  private responded = false;
  private readonly onResponse = (res: IncomingMessage) => {
    this.responded = true;
    this.listener.response(res);
  };

  constructor(
    private readonly transport: Transport,
    private readonly payload: string,
    private readonly headers: Record<string, string>,
    private readonly fields: ConnectionFields,
    private readonly clock: Clock,
    private readonly listener: CallListener,
  ) {}

  /** Makes the request on the pool, not sent yet; false when Node refused it (the listener was told). */
  open(): boolean {
    return this.openWith({ agent: this.transport.agent });
  }

  /** Sends the request; `atMs` is its send time, the one a new connection's handshake is timed from. */
  send(atMs: number): void {
    this.sentAtMs = atMs;
    this.req?.end(this.payload);
  }

  /** Ends the request on the wire, whatever it was doing. */
  destroy(): void {
    this.req?.destroy();
  }

  private openWith(options: HttpRequestOptions): boolean {
    let sent: ClientRequest;
    try {
      sent = this.transport.request(
        this.transport.url,
        { method: "POST", headers: this.headers, ...options },
        this.onResponse,
      );
    } catch (error) {
      // Invalid header values (a custom route's) throw before anything is sent.
      this.listener.failed("send", (error as Error).message);
      return false;
    }
    this.req = sent;
    sent.on("socket", (socket: Socket) => this.onSocket(sent, socket));
    sent.on("error", (error: NodeJS.ErrnoException) => this.onError(sent, error));
    return true;
  }

  /** Records the connection `sent` got, and on a new one when its TCP (and TLS) handshake finished. */
  private onSocket(sent: ClientRequest, socket: Socket): void {
    if (sent !== this.req) return;
    this.bytesReadBefore = socket.bytesRead;
    if (sent.reusedSocket) {
      this.fields.connection = "reused";
      return;
    }
    this.fields.connection = "new";
    if (!socket.connecting) return;
    socket.once("connect", () => {
      if (sent !== this.req) return;
      const connectedAtMs = this.clock.now();
      this.fields.connectMs = connectedAtMs - this.sentAtMs;
      if (this.transport.secure)
        socket.once("secureConnect", () => {
          if (sent === this.req) this.fields.tlsMs = this.clock.now() - connectedAtMs;
        });
    });
  }

  private onError(sent: ClientRequest, error: NodeJS.ErrnoException): void {
    if (sent !== this.req || this.listener.settled) return;
    if (this.responded) this.listener.failed("stream", error.message);
    else if (this.listener.mayResend() && this.isStale(sent, error)) this.resend();
    else this.listener.failed("connection", error.message);
  }

  /**
   * A reused socket that fails before reading a byte for this request was closed by the server
   * before the request reached it (the server keeps no connection after a response, or closed
   * it idle): the server never read it, so it goes again once, on a connection opened for it.
   */
  private isStale(sent: ClientRequest, error: NodeJS.ErrnoException): boolean {
    return (
      sent.reusedSocket &&
      this.fields.staleSockets === 0 &&
      STALE_SOCKET_CODES.has(error.code ?? "") &&
      (sent.socket?.bytesRead ?? this.bytesReadBefore) === this.bytesReadBefore
    );
  }

  /**
   * The re-send goes on a one-off connection (`agent: false`, so it asks `Connection: close`),
   * not through the pool, whose other idle sockets may be as stale as the one that failed. The
   * CA goes with it: it is the pool agent's option, and this connection has no agent of ours.
   */
  private resend(): void {
    const now = this.clock.now();
    const fields = this.fields;
    fields.staleSockets++;
    fields.staleSocketMs = now - fields.startMs;
    fields.connection = null;
    fields.connectMs = null;
    fields.tlsMs = null;
    const ca = this.transport.ca;
    if (!this.openWith({ agent: false, ...(ca ? { ca } : {}) })) return;
    this.send(now);
  }
}
