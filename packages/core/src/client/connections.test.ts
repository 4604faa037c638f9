/**
 * @module The client against servers that handle connections the way real ones do (loopback, real
 * sockets): one that closes after every streamed response while advertising keep-alive (llama.cpp's
 * `llama-server`), one that closes idle connections (uvicorn, after 400 ms here), one that answers
 * `Connection: close`, ones that reset, and HTTPS with a certificate made for the test. Each server
 * counts the requests it read and the connections it accepted: no request lost, none sent twice.
 */
import { execFile, execFileSync } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RawResult, StreamingClient } from "./index.ts";

/** How a test server handles its connections. */
type Behaviour =
  | "keep-alive"
  | "close-after-each"
  | "idle-close"
  | "connection-close"
  | "reset-mid-stream"
  | "reset-before-response";

interface TestServer {
  baseURL: string;
  /** Chat requests the server read, and TCP (or TLS) connections it accepted. */
  requests: number;
  connections: number;
  close(): Promise<void>;
}

const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const chunk = (content: string, finish: string | null = null) =>
  event({
    id: "c",
    object: "chat.completion.chunk",
    model: "m",
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  });
const USAGE = event({ id: "c", choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });

/**
 * The idle time after which the `idle-close` server closes a connection, ms: long beside the gap a
 * busy machine can leave between a response and the next request on its socket (a close in that gap
 * loses a request written as the socket closes, which this test is not about), short beside the pause.
 */
const IDLE_CLOSE_MS = 400;

async function startServer(behaviour: Behaviour, tls?: { key: string; cert: string }): Promise<TestServer> {
  const idle = new Map<Socket, NodeJS.Timeout>();
  /** Sockets the close-after-each server ended after a response: it still reads them, as llama.cpp does. */
  const closing = new WeakSet<Socket>();
  const state = { requests: 0, connections: 0 };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      state.requests++;
      const socket = req.socket;
      // A request that reached a connection the server is closing: read (counted), never answered.
      if (closing.has(socket)) return socket.destroy();
      clearTimeout(idle.get(socket));
      if (behaviour === "reset-before-response") return socket.resetAndDestroy();
      const headers: Record<string, string> = { "content-type": "text/event-stream" };
      if (behaviour === "close-after-each") {
        // llama.cpp's server: keep-alive advertised, the connection closed after the response anyway.
        headers.connection = "keep-alive";
        headers["keep-alive"] = "timeout=5, max=100";
        // It ends its side and reads on: a request sent on the socket meanwhile reaches it.
        res.on("finish", () => {
          closing.add(socket);
          socket.end();
        });
      }
      if (behaviour === "connection-close") headers.connection = "close";
      if (behaviour === "idle-close")
        res.on("finish", () =>
          idle.set(
            socket,
            setTimeout(() => socket.destroy(), IDLE_CLOSE_MS),
          ),
        );
      res.writeHead(200, headers);
      res.write(chunk("a"));
      if (behaviour === "reset-mid-stream") return setTimeout(() => socket.resetAndDestroy(), 5);
      res.end(`${chunk("b")}${chunk("c", "stop")}${USAGE}data: [DONE]\n\n`);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  // The idle server closes by its own timer (uvicorn sends no keep-alive hint); the others keep idle sockets 5 s.
  if (behaviour === "idle-close") server.keepAliveTimeout = 0;
  server.on(tls ? "secureConnection" : "connection", () => state.connections++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `${tls ? "https" : "http"}://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const timer of idle.values()) clearTimeout(timer);
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

const client = (server: TestServer, ca?: string) =>
  new StreamingClient({ baseURL: server.baseURL, model: "m", route: { gateway: "direct" } as never, ca });

/** A closed loop: `concurrency` requests in flight until `total` have ended, in the order they ended. */
async function closedLoop(c: StreamingClient, concurrency: number, total: number): Promise<RawResult[]> {
  const results: RawResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next++;
      results.push(await c.send({ prompt: "p", maxTokens: 3, temperature: 0, timeoutMs: 10_000 }));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

const count = (results: RawResult[], pick: (r: RawResult) => boolean) => results.filter(pick).length;
const sum = (results: RawResult[], pick: (r: RawResult) => number) => results.reduce((s, r) => s + pick(r), 0);

/**
 * What holds against every server: the server read each request once (a request is written once:
 * after a stale socket it went on a new connection, not a byte of it on the stale one), each
 * connection it accepted was opened by exactly one sample recorded `new`, and a stale socket's cost
 * is recorded exactly where one was met.
 */
function expectAccounted(server: TestServer, results: RawResult[], total: number) {
  expect(results).toHaveLength(total);
  expect(server.requests).toBe(total);
  expect(count(results, (r) => r.connection === "new")).toBe(server.connections);
  expect(count(results, (r) => r.staleSocketMs !== null)).toBe(sum(results, (r) => r.staleSockets));
  for (const r of results) {
    expect(r.sends).toBe(1);
    expect(r.staleSockets).toBeLessThanOrEqual(1);
    // A handshake is timed exactly on a new connection.
    expect(r.connectMs !== null).toBe(r.connection === "new");
  }
}

describe.each([1, 16])("the client's connections at N = %i", (concurrency) => {
  const total = 4 * concurrency + 16;

  it("against a server that closes after every streamed response and reads on (llama.cpp): none lost, none received twice, every sample on a new connection", async () => {
    const server = await startServer("close-after-each");
    try {
      const results = await closedLoop(client(server), concurrency, total);
      expect(count(results, (r) => r.outcome === "ok")).toBe(total);
      expectAccounted(server, results, total);
      // No connection outlives its response, so none is reused: the stale ones were re-sent on new ones.
      expect(count(results, (r) => r.connection === "new")).toBe(total);
      // The pool hands out the closing socket before its close is seen (issue 23); the probe sees it
      // close before a byte is written (issue 31), and the client learns to open one per request.
      expect(sum(results, (r) => r.staleSockets)).toBeGreaterThan(0);
      expect(sum(results, (r) => r.staleSockets)).toBeLessThanOrEqual(concurrency);
    } finally {
      await server.close();
    }
  });

  it("against a keep-alive server: most requests on a reused connection, at most N opened", async () => {
    const server = await startServer("keep-alive");
    try {
      const results = await closedLoop(client(server), concurrency, total);
      expect(count(results, (r) => r.outcome === "ok")).toBe(total);
      expectAccounted(server, results, total);
      expect(server.connections).toBeLessThanOrEqual(concurrency);
      expect(count(results, (r) => r.connection === "reused")).toBe(total - server.connections);
      expect(sum(results, (r) => r.staleSockets)).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("against a server that closes idle connections: none lost across a pause longer than its idle time", async () => {
    const server = await startServer("idle-close");
    try {
      const c = client(server);
      const before = await closedLoop(c, concurrency, total / 2);
      // Four times the server's idle time: every pooled socket is closed (seen closed, or stale).
      await new Promise((r) => setTimeout(r, 4 * IDLE_CLOSE_MS));
      const after = await closedLoop(c, concurrency, total / 2);
      const results = [...before, ...after];
      expect(count(results, (r) => r.outcome === "ok")).toBe(total);
      expectAccounted(server, results, total);
      // The first N after the pause could not use the sockets from before it.
      expect(count(after, (r) => r.connection === "new")).toBeGreaterThanOrEqual(concurrency);
      expect(count(results, (r) => r.connection === "reused")).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it("against a server that answers Connection: close: every sample on a new connection, no stale socket", async () => {
    const server = await startServer("connection-close");
    try {
      const results = await closedLoop(client(server), concurrency, total);
      expect(count(results, (r) => r.outcome === "ok")).toBe(total);
      expectAccounted(server, results, total);
      expect(count(results, (r) => r.connection === "new")).toBe(total);
      expect(sum(results, (r) => r.staleSockets)).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("against a server that resets the connection: a failed sample, never sent again", async () => {
    const midStream = await startServer("reset-mid-stream");
    const beforeResponse = await startServer("reset-before-response");
    try {
      const broken = await closedLoop(client(midStream), concurrency, total);
      // A stream cut after its first chunk is `incomplete`, as every broken stream is (methodology).
      expect(count(broken, (r) => r.outcome === "incomplete")).toBe(total);
      expectAccounted(midStream, broken, total);
      const refused = await closedLoop(client(beforeResponse), concurrency, total);
      // Reset before any response byte on a new connection: the server read it, so no re-send.
      expect(count(refused, (r) => r.outcome === "network")).toBe(total);
      expectAccounted(beforeResponse, refused, total);
      expect(sum([...broken, ...refused], (r) => r.staleSockets)).toBe(0);
    } finally {
      await midStream.close();
      await beforeResponse.close();
    }
  });
});

/**
 * llama.cpp's habit (close after each response) with the server on a thread of its own, so that its
 * close reaches the client whatever the client's thread is doing: 5 ms after its first response it
 * holds the client's thread for 40 ms (as a loaded machine does, between two turns of its event loop),
 * and sends its close 15 ms after that response, while the client's thread is held. When the thread
 * runs again, the probe of the kept socket is due (20 ms) and the close is there, not yet read.
 */
const HELD_SERVER = `
const { parentPort } = require("node:worker_threads");
const http = require("node:http");
const closing = new WeakSet();
const state = { requests: 0, connections: 0 };
let first = true;
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    state.requests++;
    const socket = req.socket;
    if (closing.has(socket)) return socket.destroy();
    res.writeHead(200, { "content-type": "text/event-stream", connection: "keep-alive", "keep-alive": "timeout=5, max=100" });
    res.on("finish", () => {
      closing.add(socket);
      if (!first) return socket.end();
      first = false;
      setTimeout(() => parentPort.postMessage({ hold: 40 }), 5);
      setTimeout(() => socket.end(), 15);
    });
    res.end(${JSON.stringify(`${chunk("a")}${chunk("b")}${chunk("c", "stop")}${USAGE}data: [DONE]\n\n`)});
  });
});
server.on("connection", () => state.connections++);
parentPort.on("message", (m) => {
  if (m === "counts") parentPort.postMessage({ counts: state });
  if (m === "close") { server.closeAllConnections(); server.close(() => process.exit(0)); }
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
`;

describe("the client whose thread is held up as a kept socket's close arrives", () => {
  it("reads the close before writing on the socket: none lost, none received twice", async () => {
    const worker = new Worker(HELD_SERVER, { eval: true });
    const messages = new EventEmitter();
    worker.on("message", (m: { port?: number; hold?: number; counts?: { requests: number; connections: number } }) => {
      // Busy, not asleep: the thread's event loop does not turn while it is held.
      if (m.hold) for (const end = performance.now() + m.hold; performance.now() < end; );
      if (m.port) messages.emit("port", m.port);
      if (m.counts) messages.emit("counts", m.counts);
    });
    try {
      const [port] = (await once(messages, "port")) as [number];
      const total = 20;
      const results = await closedLoop(
        new StreamingClient({
          baseURL: `http://127.0.0.1:${port}/v1`,
          model: "m",
          route: { gateway: "direct" } as never,
        }),
        1,
        total,
      );
      worker.postMessage("counts");
      const [counts] = (await once(messages, "counts")) as [{ requests: number; connections: number }];
      expect(count(results, (r) => r.outcome === "ok")).toBe(total);
      expect(counts.requests).toBe(total);
      expect(count(results, (r) => r.connection === "new")).toBe(counts.connections);
      // The second request met the closed socket, and went on a new connection before a byte was written.
      expect(results[1]?.staleSockets).toBe(1);
      expect(results.every((r) => r.sends === 1)).toBe(true);
    } finally {
      worker.postMessage("close");
      await once(worker, "exit");
    }
  });
});

describe("the client over HTTPS", () => {
  let dir: string;
  let tls: { key: string; cert: string };

  beforeAll(() => {
    // A self-signed certificate for 127.0.0.1, made for this run: the test trusts it as its CA.
    dir = mkdtempSync(join(tmpdir(), "kneeboard-tls-"));
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
        ...["-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1"],
        ...["-addext", "subjectAltName=IP:127.0.0.1"],
      ],
      { stdio: "ignore" },
    );
    tls = { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([1, 16])(
    "streams over a keep-alive TLS connection at N = %i, the handshake timed where a connection is new",
    async (concurrency) => {
      const server = await startServer("keep-alive", tls);
      try {
        const total = 4 * concurrency + 16;
        const results = await closedLoop(client(server, tls.cert), concurrency, total);
        expect(count(results, (r) => r.outcome === "ok")).toBe(total);
        expectAccounted(server, results, total);
        for (const r of results) expect(r.tlsMs !== null).toBe(r.connection === "new");
        expect(count(results, (r) => r.connection === "reused")).toBe(total - server.connections);
      } finally {
        await server.close();
      }
    },
  );

  it("re-sends after a stale TLS socket on a new connection that trusts the same CA", async () => {
    const server = await startServer("close-after-each", tls);
    try {
      const results = await closedLoop(client(server, tls.cert), 1, 24);
      expect(count(results, (r) => r.outcome === "ok")).toBe(24);
      expectAccounted(server, results, 24);
      expect(count(results, (r) => r.tlsMs !== null)).toBe(24);
    } finally {
      await server.close();
    }
  });

  it("trusts a CA given by NODE_EXTRA_CA_CERTS, Node's own way, without a ca option", async () => {
    const server = await startServer("keep-alive", tls);
    try {
      // Node reads the variable at start-up only: the client runs in a child process started with it.
      const clientModule = new URL("./index.ts", import.meta.url).href;
      const script = `
        const { StreamingClient } = await import(${JSON.stringify(clientModule)});
        const client = new StreamingClient({ baseURL: ${JSON.stringify(server.baseURL)}, model: "m", route: { gateway: "direct" } });
        const raw = await client.send({ prompt: "p", maxTokens: 3, temperature: 0, timeoutMs: 10000 });
        process.stdout.write(JSON.stringify({ outcome: raw.outcome, error: raw.error }));`;
      const output = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ["--import", "tsx", "--input-type=module", "-e", script],
          { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") } },
          (error, stdout) => (error ? reject(error) : resolve(stdout)),
        ),
      );
      expect(JSON.parse(output)).toEqual({ outcome: "ok", error: null });
      expect(server.requests).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("refuses a certificate it was not given the CA of: verification stays on", async () => {
    const server = await startServer("keep-alive", tls);
    try {
      const [raw] = await closedLoop(client(server), 1, 1);
      expect(raw?.outcome).toBe("network");
      expect(raw?.error).toMatch(/certificate/i);
      expect(server.requests).toBe(0);
    } finally {
      await server.close();
    }
  });
});
