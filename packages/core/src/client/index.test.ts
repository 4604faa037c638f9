/** @module The client against real HTTP streaming servers: every outcome of docs/methodology.md, from the wire. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRetryAfter, StreamingClient } from "./index.ts";

type Handler = (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) => void;
const handlers = new Map<string, Handler>();
const seenBodies: Record<string, unknown>[] = [];
const seenHeaders: Record<string, string | string[] | undefined>[] = [];
let server: Server;
let baseURL: string;

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m-served", choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
const usage = (n: number) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 10, completion_tokens: n, total_tokens: 10 + n } })}\n\n`;
const sse = (res: ServerResponse, headers: Record<string, string> = {}) =>
  res.writeHead(200, { "content-type": "text/event-stream", ...headers });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      seenBodies.push(body);
      seenHeaders.push(req.headers);
      const handler = handlers.get(String(body.model));
      if (!handler) return res.writeHead(404).end();
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const send = (
  model: string,
  route: Record<string, unknown> = { gateway: "direct" },
  timeoutMs = 5000,
  apiKey?: string,
) =>
  new StreamingClient({ baseURL, model, route: route as never, apiKey }).send({
    prompt: "hi",
    maxTokens: 8,
    temperature: 0,
    timeoutMs,
  });

describe("StreamingClient", () => {
  it("takes tokens from usage with multi-token chunks, and a role-only chunk does not start TTFT", async () => {
    handlers.set("multi", async (_q, res) => {
      sse(res);
      res.write(chunk({ role: "assistant" }));
      await sleep(60);
      res.write(chunk({ content: "aaaa bbbb" }));
      await sleep(20);
      res.write(chunk({ content: "cccc dddd" }, {}, "length"));
      res.end(`${usage(4)}data: [DONE]\n\n`);
    });
    const raw = await send("multi");
    expect(raw.outcome).toBe("ok");
    expect(raw.completionTokens).toBe(4);
    expect(raw.contentChunks).toHaveLength(2);
    // TTFT is measured to the first content chunk, sent 60 ms after the role-only chunk.
    expect((raw.contentChunks[0]?.tMs ?? 0) - raw.startMs).toBeGreaterThanOrEqual(55);
    expect(raw.servedProvider).toBe("m-served");
  });

  it("reports no usage as null tokens so the sweep counts chunks", async () => {
    handlers.set("nousage", (_q, res) => {
      sse(res);
      res.end(`${chunk({ content: "a" })}${chunk({ content: "b" }, {}, "stop")}data: [DONE]\n\n`);
    });
    const raw = await send("nousage");
    expect(raw.outcome).toBe("ok");
    expect(raw.completionTokens).toBeNull();
    expect(raw.contentChunks).toHaveLength(2);
  });

  it("records a 429 with its retry-after, once (no hidden retries)", async () => {
    let calls = 0;
    handlers.set("limited", (_q, res) => {
      calls++;
      res
        .writeHead(429, { "content-type": "application/json", "retry-after": "7" })
        .end(JSON.stringify({ error: { message: "slow down" } }));
    });
    const raw = await send("limited");
    expect(raw.outcome).toBe("rate_limited");
    expect(raw.httpStatus).toBe(429);
    expect(raw.retryAfterSeconds).toBe(7);
    expect(calls).toBe(1);
  });

  it("records a 500 as http_error", async () => {
    handlers.set("broken", (_q, res) => res.writeHead(503).end("down"));
    const raw = await send("broken");
    expect(raw.outcome).toBe("http_error");
    expect(raw.httpStatus).toBe(503);
  });

  it("records a stall past the timeout as timeout", async () => {
    handlers.set("stall", (_q, res) => {
      sse(res);
      res.write(chunk({ content: "a" }));
      setTimeout(() => res.destroy(), 3000);
    });
    const raw = await send("stall", { gateway: "direct" }, 300);
    expect(raw.outcome).toBe("timeout");
  });

  it("records a connection cut mid-stream as incomplete, and a refused connection as network", async () => {
    handlers.set("cut", (_q, res) => {
      sse(res);
      res.write(chunk({ content: "a" }));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect((await send("cut")).outcome).toBe("incomplete");
    const refused = await new StreamingClient({
      baseURL: "http://127.0.0.1:1/v1",
      model: "x",
      route: { gateway: "direct" } as never,
    }).send({ prompt: "p", maxTokens: 1, temperature: 0, timeoutMs: 2000 });
    expect(refused.outcome).toBe("network");
  });

  it("survives malformed SSE data and a stream without finish", async () => {
    handlers.set("malformed", (_q, res) => {
      sse(res);
      res.end(`${chunk({ content: "a" })}data: {not json\n\n${chunk({ content: "b" }, {}, "stop")}data: [DONE]\n\n`);
    });
    handlers.set("nofinish", (_q, res) => {
      sse(res);
      res.end(`${chunk({ content: "a" })}data: [DONE]\n\n`);
    });
    const malformed = await send("malformed");
    expect(malformed.outcome).toBe("incomplete");
    expect(malformed.error).toMatch(/malformed|JSON/i);
    expect((await send("nofinish")).outcome).toBe("incomplete");
  });

  it("pins an OpenRouter route and flags a fallback as route_mismatch", async () => {
    handlers.set("gw", (_q, res, body) => {
      const order = (body.provider as { order: string[] }).order;
      sse(res);
      const served = order[0] === "alpha" ? "Alpha" : "gamma";
      res.end(`${chunk({ content: "a" }, { provider: served }, "stop")}${usage(1)}data: [DONE]\n\n`);
    });
    const ok = await send("gw", { gateway: "openrouter", provider: "alpha" });
    expect(seenBodies.at(-1)?.provider).toEqual({ order: ["alpha"], allow_fallbacks: false });
    expect(ok.outcome).toBe("ok");
    expect(ok.servedProvider).toBe("Alpha");
    const fell = await send("gw", { gateway: "openrouter", provider: "beta" });
    expect(fell.outcome).toBe("route_mismatch");
    expect(fell.servedProvider).toBe("gamma");
  });

  it("pins a LiteLLM route by body and header and verifies the response headers", async () => {
    handlers.set("lite", (_q, res) => {
      sse(res, { "x-litellm-attempted-fallbacks": "1", "x-litellm-model-id": "dep-2" });
      res.end(`${chunk({ content: "a" }, {}, "stop")}data: [DONE]\n\n`);
    });
    const raw = await send("lite", { gateway: "litellm", deployment: "dep-1" });
    expect(seenBodies.at(-1)?.disable_fallbacks).toBe(true);
    expect(seenHeaders.at(-1)?.["x-litellm-num-retries"]).toBe("0");
    expect(raw.outcome).toBe("route_mismatch");
    expect(raw.servedProvider).toBe("dep-2");
  });

  it("sends custom body fields and headers and verifies a body field", async () => {
    handlers.set("custom", (_q, res) => {
      sse(res);
      res.end(`${chunk({ content: "a" }, { meta: { served: "east" } }, "stop")}data: [DONE]\n\n`);
    });
    const raw = await send("custom", {
      gateway: "custom",
      body: { region: "east" },
      headers: { "x-pin": "east" },
      verify: { bodyField: "meta.served", equals: "east" },
    });
    expect(seenBodies.at(-1)?.region).toBe("east");
    expect(seenHeaders.at(-1)?.["x-pin"]).toBe("east");
    // The client's internal request mark never reaches the provider.
    expect(Object.keys(seenHeaders.at(-1) ?? {}).filter((h) => h.startsWith("x-kneeboard"))).toEqual([]);
    expect(raw.outcome).toBe("ok");
    expect(raw.servedProvider).toBe("east");
  });

  it("never puts the API key into an error message", async () => {
    const key = "sk-secret-0123456789";
    handlers.set("echo-key", (req, res) =>
      res
        .writeHead(401, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `bad key ${req.headers.authorization}` } })),
    );
    const raw = await send("echo-key", { gateway: "direct" }, 5000, key);
    expect(raw.outcome).toBe("http_error");
    expect(raw.error).not.toContain(key);
    expect(raw.error).toContain("***");
  });

  it("reads reasoning deltas, the first answer's time and usage details, cost included", async () => {
    handlers.set("reasoner", async (_q, res) => {
      sse(res);
      res.write(chunk({ reasoning: "think" }));
      res.write(chunk({ reasoning_content: "more" }));
      await sleep(40);
      res.write(chunk({ content: "answer" }, {}, "stop"));
      const details = {
        prompt_tokens: 10,
        completion_tokens: 6,
        completion_tokens_details: { reasoning_tokens: 4 },
        prompt_tokens_details: { cached_tokens: 2 },
        cost: 0.0012,
      };
      res.end(`data: ${JSON.stringify({ id: "c1", choices: [], usage: details })}\n\ndata: [DONE]\n\n`);
    });
    const raw = await send("reasoner");
    expect(raw.outcome).toBe("ok");
    expect(raw.contentChunks).toHaveLength(3);
    // The answer came 40 ms after the reasoning: the first answer is the third chunk, not the first.
    expect(raw.firstAnswerMs).toBe(raw.contentChunks[2]?.tMs);
    expect(raw.firstAnswerMs).toBeGreaterThan(raw.contentChunks[0]?.tMs ?? Number.POSITIVE_INFINITY);
    expect([raw.reasoningTokens, raw.cachedPromptTokens, raw.costUsd]).toEqual([4, 2, 0.0012]);
    const plain = await send("multi");
    expect([plain.reasoningTokens, plain.cachedPromptTokens, plain.costUsd]).toEqual([null, null, null]);
    expect(plain.firstAnswerMs).toBe(plain.contentChunks[0]?.tMs);
  });

  it("parses events split across reads, CRLF line ends and multi-byte characters cut mid-byte", async () => {
    handlers.set("split", async (_q, res) => {
      sse(res);
      const text = `${chunk({ content: "héllo ✓" }).replace(/\n/g, "\r\n")}: a comment\n\n${chunk({ content: "b" }, {}, "stop")}data: [DONE]\n\n`;
      const bytes = Buffer.from(text);
      // Cut inside the multi-byte characters and inside a line, with pauses so each part is its own read.
      const cuts = [bytes.indexOf(Buffer.from("✓")) + 1, bytes.indexOf(Buffer.from("é")) + 1, 30].sort((a, b) => a - b);
      let from = 0;
      for (const cut of [...cuts, bytes.length]) {
        res.write(bytes.subarray(from, cut));
        from = cut;
        await sleep(10);
      }
      res.end();
    });
    const raw = await send("split");
    expect(raw.outcome).toBe("ok");
    expect(raw.contentChunks.map((c) => c.chars)).toEqual([7, 1]);
  });

  it("records an abort from outside as network, at once", async () => {
    handlers.set("slow", (_q, res) => {
      sse(res);
      res.write(chunk({ content: "a" }));
    });
    const stop = new AbortController();
    const pending = new StreamingClient({ baseURL, model: "slow", route: { gateway: "direct" } as never }).send({
      prompt: "p",
      maxTokens: 1,
      temperature: 0,
      timeoutMs: 5000,
      signal: stop.signal,
    });
    setTimeout(() => stop.abort(), 50);
    const raw = await pending;
    expect(raw.outcome).toBe("network");
    expect(raw.error).toMatch(/aborted/);
    expect(raw.contentChunks).toHaveLength(1);
  });

  it("parses retry-after as seconds or a date", () => {
    expect(parseRetryAfter("3")).toBe(3);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6);
    expect(parseRetryAfter(null)).toBeNull();
  });
});
