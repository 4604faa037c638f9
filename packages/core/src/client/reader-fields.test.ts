/**
 * @module The client's reasoning, cost and cache fields over real HTTP: a local server replays SSE in
 * the shapes OpenRouter and vLLM send (reasoning deltas, then the answer; usage with cost and token
 * details) and records when it wrote each part, the truth the measured times are held to.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toSample } from "../sweep/index.ts";
import { StreamingClient } from "./index.ts";

/** What the server did, on the same monotonic clock as the client: request arrival and writes, ms. */
interface Truth {
  arrivedMs: number;
  firstReasoningMs: number | null;
  firstAnswerMs: number | null;
}

type Script = (res: ServerResponse, truth: Truth) => Promise<void>;
const scripts = new Map<string, Script>();
const truths = new Map<string, Truth>();
let server: ReturnType<typeof createServer>;
let baseURL: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

/** A chunk as OpenRouter streams it: top-level provider, native_finish_reason, logprobs. */
const openRouterChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  event({
    id: "gen-1764700000-AbCdEfGh",
    provider: "DeepInfra",
    model: "deepseek/deepseek-r1",
    object: "chat.completion.chunk",
    created: 1764700000,
    choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: finish, logprobs: null }],
  });

/** OpenRouter's closing usage chunk: cost in USD, cached prompt tokens, reasoning tokens. */
const OPENROUTER_USAGE = {
  prompt_tokens: 180,
  completion_tokens: 71,
  total_tokens: 251,
  cost: 0.000213,
  is_byok: false,
  prompt_tokens_details: { cached_tokens: 128, audio_tokens: 0 },
  cost_details: {
    upstream_inference_cost: null,
    upstream_inference_prompt_cost: 0.0001,
    upstream_inference_completions_cost: 0.000113,
  },
  completion_tokens_details: { reasoning_tokens: 64, image_tokens: 0 },
};

/** A chunk as vLLM streams it: reasoning in `reasoning_content`. */
const vllmChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  event({
    id: "chatcmpl-9f1c",
    object: "chat.completion.chunk",
    created: 1764700000,
    model: "Qwen/Qwen3-8B",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, stop_reason: null }],
  });

beforeAll(async () => {
  server = createServer((req, res) => {
    const truth: Truth = { arrivedMs: performance.now(), firstReasoningMs: null, firstAnswerMs: null };
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const model = String((JSON.parse(text) as { model?: unknown }).model);
      truths.set(model, truth);
      const script = scripts.get(model);
      if (!script) return res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      void script(res, truth);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  // One request first: the process's first fetch sets up its HTTP machinery and a connection,
  // a one-off cost that belongs to no provider's TTFT.
  scripts.set("warm", async (res) => {
    res.end(`${vllmChunk({ content: "x" }, "stop")}data: [DONE]\n\n`);
  });
  await send("warm");
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const send = (model: string) =>
  new StreamingClient({ baseURL, model, route: { gateway: "direct" } }).send({
    prompt: "hi",
    maxTokens: 64,
    temperature: 0,
    timeoutMs: 5000,
  });

/**
 * Measured TTFT against the server's own (request arrived to chunk written), both on this process's
 * clock: the client sent before the request arrived and read after the write, so the measured one is
 * never less, however loaded the machine. How close it comes is `npm run bench`'s to show, not a test's.
 */
const noEarlierThan = (measured: number | null, truth: number) => {
  expect(measured).not.toBeNull();
  expect(measured as number).toBeGreaterThanOrEqual(truth);
};

describe("StreamingClient: reasoning, cost and cached tokens", () => {
  it("times TTFT at the first reasoning delta and answer TTFT at the first answer (OpenRouter `reasoning`)", async () => {
    scripts.set("or-reasoning", async (res, truth) => {
      // OpenRouter keeps the connection alive with SSE comments; they are no chunk.
      res.write(": OPENROUTER PROCESSING\n\n");
      res.write(openRouterChunk({ role: "assistant", content: "" }));
      await sleep(80);
      truth.firstReasoningMs = performance.now();
      res.write(openRouterChunk({ role: "assistant", content: "", reasoning: "Okay, the user" }));
      for (let i = 0; i < 3; i++) {
        await sleep(30);
        res.write(openRouterChunk({ role: "assistant", content: "", reasoning: " wants a greeting" }));
      }
      await sleep(120);
      truth.firstAnswerMs = performance.now();
      res.write(openRouterChunk({ role: "assistant", content: "Hello" }));
      await sleep(20);
      res.write(openRouterChunk({ role: "assistant", content: "!" }, "stop"));
      res.end(
        `${event({ id: "gen-1764700000-AbCdEfGh", provider: "DeepInfra", model: "deepseek/deepseek-r1", object: "chat.completion.chunk", created: 1764700000, choices: [], usage: OPENROUTER_USAGE })}data: [DONE]\n\n`,
      );
    });
    const raw = await send("or-reasoning");
    const truth = truths.get("or-reasoning") as Truth;
    expect(raw.outcome).toBe("ok");
    const sample = toSample(raw, 1, 0, raw.startMs);
    noEarlierThan(sample.ttftMs, (truth.firstReasoningMs as number) - truth.arrivedMs);
    noEarlierThan(sample.ttftAnswerMs, (truth.firstAnswerMs as number) - truth.arrivedMs);
    // TTFT is the first reasoning chunk's read, answer TTFT the first answer chunk's (after 4 reasoning ones).
    expect(sample.ttftMs).toBe((raw.contentChunks[0]?.tMs as number) - raw.startMs);
    expect(raw.firstAnswerMs).toBe(raw.contentChunks[4]?.tMs);
    expect(raw.costUsd).toBe(0.000213);
    expect(raw.reasoningTokens).toBe(64);
    expect(raw.cachedPromptTokens).toBe(128);
    expect(sample).toMatchObject({
      costUsd: 0.000213,
      reasoningTokens: 64,
      cachedPromptTokens: 128,
      promptTokens: 180,
    });
    // Reasoning deltas are output: they count as chunks and in the decode figures.
    expect(sample.chunks).toBe(6);
  });

  it("reads vLLM's `reasoning_content` the same way, with zeros kept as zeros", async () => {
    scripts.set("vllm-reasoning", async (res, truth) => {
      res.write(vllmChunk({ role: "assistant", content: "" }));
      await sleep(50);
      truth.firstReasoningMs = performance.now();
      res.write(vllmChunk({ reasoning_content: "Let me think" }));
      await sleep(100);
      truth.firstAnswerMs = performance.now();
      res.write(vllmChunk({ content: "Hi" }));
      await sleep(10);
      res.write(vllmChunk({ content: "." }, "stop"));
      res.end(
        `${event({ id: "chatcmpl-9f1c", object: "chat.completion.chunk", created: 1764700000, model: "Qwen/Qwen3-8B", choices: [], usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25, cost: 0, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 3 } } })}data: [DONE]\n\n`,
      );
    });
    const raw = await send("vllm-reasoning");
    const truth = truths.get("vllm-reasoning") as Truth;
    const sample = toSample(raw, 1, 0, raw.startMs);
    expect(raw.outcome).toBe("ok");
    noEarlierThan(sample.ttftMs, (truth.firstReasoningMs as number) - truth.arrivedMs);
    noEarlierThan(sample.ttftAnswerMs, (truth.firstAnswerMs as number) - truth.arrivedMs);
    expect(raw.reasoningTokens).toBe(3);
    expect(raw.cachedPromptTokens).toBe(0);
    expect(raw.costUsd).toBe(0);
  });

  it("reports absent fields as null, never 0, and answer TTFT equal to TTFT without reasoning", async () => {
    scripts.set("plain", async (res, truth) => {
      await sleep(40);
      truth.firstAnswerMs = performance.now();
      res.write(vllmChunk({ role: "assistant", content: "Hi" }));
      await sleep(10);
      res.write(vllmChunk({ content: "!" }, "stop"));
      res.end(
        `${event({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, prompt_tokens_details: null } })}data: [DONE]\n\n`,
      );
    });
    scripts.set("nousage", async (res) => {
      res.end(`${vllmChunk({ reasoning: "hmm" })}${vllmChunk({ content: "x" }, "stop")}data: [DONE]\n\n`);
    });
    scripts.set("onlyreasoning", async (res) => {
      res.end(`${vllmChunk({ reasoning: "hmm" })}${vllmChunk({ reasoning: "..." }, "length")}data: [DONE]\n\n`);
    });
    const plain = await send("plain");
    const sample = toSample(plain, 1, 0, plain.startMs);
    noEarlierThan(
      sample.ttftMs,
      (truths.get("plain")?.firstAnswerMs as number) - (truths.get("plain")?.arrivedMs as number),
    );
    expect(sample.ttftAnswerMs).toBe(sample.ttftMs);
    expect(plain).toMatchObject({ costUsd: null, reasoningTokens: null, cachedPromptTokens: null, promptTokens: 9 });
    const bare = await send("nousage");
    expect(bare).toMatchObject({ outcome: "ok", costUsd: null, reasoningTokens: null, cachedPromptTokens: null });
    expect(bare.firstAnswerMs).not.toBeNull();
    // The length ran out while reasoning: no answer, so no answer TTFT.
    const thinking = await send("onlyreasoning");
    expect(thinking.outcome).toBe("ok");
    expect(thinking.firstAnswerMs).toBeNull();
    expect(toSample(thinking, 1, 0, thinking.startMs)).toMatchObject({ ttftAnswerMs: null, chunks: 2 });
  });
});
