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
import type { RawResult } from "./result.ts";

/**
 * A server that closes a connection within this long after its response closes it after every
 * response (llama.cpp's `llama-server`, whatever keep-alive it advertises); one that closes it later
 * closes idle connections (uvicorn after 5 s, Node after 5 s), and its kept ones are reused.
 */
export const CLOSE_AFTER_RESPONSE_MS = 1000;

/**
 * How long a kept socket must have been idle since its response before a request is written on it,
 * ms, until the origin has shown it keeps connections (a reused one carried a whole response): a
 * server's close sent with its response arrives well within it, on loopback and across the Internet.
 */
export const REUSE_PROBE_MS = 20;

/** The result fields the wire fills: the connection that carried the request, its handshake, a stale socket's cost. */
export type ConnectionFields = Pick<
  RawResult,
  "startMs" | "connection" | "sends" | "staleSockets" | "staleSocketMs" | "connectMs" | "tlsMs"
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
 * trusting `ca` when given, for `https:` base URLs), or the one injected; and what it learned of the
 * origin's habit with connections (docs/methodology.md, connections).
 */
export class Transport {
  readonly url: URL;
  readonly secure: boolean;
  readonly agent: HttpAgent;
  readonly request: typeof httpRequest;
  /**
   * The origin closed a connection after a response (within `CLOSE_AFTER_RESPONSE_MS`), answered
   * `Connection: close`, or closed a kept one under a request: each request now gets a connection of
   * its own, so none goes out on a socket the server is closing.
   */
  closesAfterResponse = false;
  /** A reused connection carried a whole response: the origin keeps connections, and a reused one is written at once. */
  keepsConnections = false;
  /** Pooled sockets watched for the server's close, and when each last ended a response (clock ms; absent while in use). */
  private readonly watched = new WeakSet<Socket>();
  private readonly idleSinceMs = new WeakMap<Socket, number>();

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

  /**
   * A pooled socket taken by a request: watched (once) for a close while idle, and how long it had
   * been idle since its last response, ms (null when it carried none yet).
   */
  take(socket: Socket, clock: Clock): number | null {
    const since = this.idleSinceMs.get(socket);
    this.idleSinceMs.delete(socket);
    if (!this.watched.has(socket)) {
      this.watched.add(socket);
      // Closed while idle (no request of ours on it): the server closed it.
      socket.once("close", () => {
        const idleSince = this.idleSinceMs.get(socket);
        if (idleSince !== undefined) this.closedIdle(clock.now() - idleSince);
      });
    }
    return since === undefined ? null : clock.now() - since;
  }

  /** The server closed a kept connection `idleMs` after its response: soon after, it closes after every response. */
  closedIdle(idleMs: number | null): void {
    if (idleMs !== null && idleMs < CLOSE_AFTER_RESPONSE_MS) this.closesAfterResponse = true;
  }

  /** A response on `socket` ended (`reused`: on a kept connection): the socket may now be reused. */
  responded(socket: Socket | null, reused: boolean, clock: Clock): void {
    if (reused) this.keepsConnections = true;
    if (socket) this.idleSinceMs.set(socket, clock.now());
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
 * One request on the wire: opened on the pool (or on a connection of its own, where the origin closes
 * after each response), sent, and, when its reused socket turns out closed before a byte of it was
 * written, sent on a connection opened for it. A request written once is never written again: the
 * server may have read it (RFC 9110, 9.2.2).
 */
export class Call {
  /** The request now on the wire (after a re-send, the re-send's): events of an earlier one are ignored. */
  private req: ClientRequest | undefined;
  /** When `req` went to the wire (the send, or the re-send), clock ms. */
  private sentAtMs = 0;
  /** How long the reused socket had been idle since its last response when the request took it, ms. */
  private idleBeforeMs: number | null = null;
  /** The request whose bytes went to a socket: an error of that one is never met with a re-send. */
  private written: ClientRequest | undefined;
  private responded = false;
  private readonly onResponse = (res: IncomingMessage) => {
    this.responded = true;
    const transport = this.transport;
    if (/\bclose\b/i.test(String(res.headers.connection ?? ""))) transport.closesAfterResponse = true;
    const reused = this.req?.reusedSocket === true;
    // Node detaches the socket from the response as it ends: it is taken here.
    const socket = res.socket;
    res.once("end", () => transport.responded(socket, reused, this.clock));
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

  /**
   * Makes the request, not sent yet: on the pool, or on a connection of its own where the origin
   * closes after each response. False when Node refused it (the listener was told).
   */
  open(): boolean {
    return this.transport.closesAfterResponse ? this.openAlone() : this.openWith({ agent: this.transport.agent });
  }

  /**
   * Sends the request; `atMs` is its send time, the one a new connection's handshake is timed from.
   * On a reused socket, while the origin has not shown it keeps connections, the write waits until
   * the socket has been idle `REUSE_PROBE_MS` since its response: a server that closes after each
   * response has closed it by then, and the request goes on a new connection instead, not a byte of
   * it written on the closed one. The request's start is then taken at the write.
   */
  send(atMs: number): void {
    this.sentAtMs = atMs;
    const req = this.req;
    if (!req) return;
    const transport = this.transport;
    if (!req.reusedSocket || transport.keepsConnections || transport.closesAfterResponse) {
      this.write(req);
      return;
    }
    // The socket is the request's once Node has assigned it (next tick): its idle time is known then.
    // The probe looks after a poll of the event loop (an immediate): a close that arrived while the
    // thread was held up is read by then, where a timer alone runs before the poll and writes on it.
    setImmediate(() => {
      const idleMs = this.idleBeforeMs;
      setTimeout(
        () => setImmediate(() => this.probed(req)),
        idleMs === null ? 0 : Math.max(0, REUSE_PROBE_MS - idleMs),
      );
    });
  }

  /** After the probe: the request goes on its reused socket, or, when the server closed it, on a new connection. */
  private probed(req: ClientRequest): void {
    if (req !== this.req || this.listener.settled) return;
    const socket = req.socket;
    if (socket && (socket.destroyed || socket.readableEnded)) {
      this.transport.closedIdle(this.idleBeforeMs);
      this.resend();
      return;
    }
    // Another request learned meanwhile that the origin closes after its responses: this socket may
    // be closing too, and not a byte has been written on it.
    if (this.transport.closesAfterResponse) {
      this.resend();
      return;
    }
    const now = this.clock.now();
    this.fields.startMs = now;
    this.sentAtMs = now;
    this.write(req);
  }

  private write(req: ClientRequest): void {
    this.written = req;
    this.fields.sends++;
    req.end(this.payload);
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
    const pooled = options.agent !== false;
    sent.on("socket", (socket: Socket) => this.onSocket(sent, socket, pooled));
    sent.on("error", (error: NodeJS.ErrnoException) => this.onError(sent, error));
    return true;
  }

  /** Records the connection `sent` got, and on a new one when its TCP (and TLS) handshake finished. */
  private onSocket(sent: ClientRequest, socket: Socket, pooled: boolean): void {
    if (sent !== this.req) return;
    if (pooled) this.idleBeforeMs = this.transport.take(socket, this.clock);
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

  /**
   * A reused socket that failed before a byte of the request was written on it goes again, on a
   * connection of its own: the server cannot have read it. Once written, never: the server may have
   * read it (llama.cpp reads and logs a request on a connection it is closing), so the failure is the
   * sample's, and the origin's habit is learned from it.
   */
  private onError(sent: ClientRequest, error: NodeJS.ErrnoException): void {
    if (sent !== this.req || this.listener.settled) return;
    if (this.responded) {
      this.listener.failed("stream", error.message);
      return;
    }
    const written = this.written === sent;
    if (sent.reusedSocket && !written && this.fields.staleSockets === 0 && this.listener.mayResend()) {
      this.transport.closedIdle(this.idleBeforeMs);
      this.resend();
      return;
    }
    if (sent.reusedSocket && written) {
      this.transport.closesAfterResponse = true;
      this.listener.failed(
        "connection",
        `${error.message} on a kept-alive connection after the request was written; not sent again, as the server may have read it`,
      );
    } else this.listener.failed("connection", error.message);
  }

  /** A connection of this request's own (`agent: false`, so it asks `Connection: close`), trusting the CA. */
  private openAlone(): boolean {
    const ca = this.transport.ca;
    return this.openWith({ agent: false, ...(ca ? { ca } : {}) });
  }

  /**
   * The re-send goes on a one-off connection, not through the pool, whose other idle sockets may be
   * as closed as the one that failed. The CA goes with it: it is the pool agent's option, and this
   * connection has no agent of ours.
   */
  private resend(): void {
    const now = this.clock.now();
    const fields = this.fields;
    fields.staleSockets++;
    fields.staleSocketMs = now - fields.startMs;
    // Not a byte left before now: the request's start is its send on the new connection.
    fields.startMs = now;
    fields.connection = null;
    fields.connectMs = null;
    fields.tlsMs = null;
    if (!this.openAlone()) return;
    this.send(now);
  }
}
