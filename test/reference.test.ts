/** @module The reference server over real HTTP: OpenAI shapes, 429s, the gateway pin, auth, disconnects. */

import { expectedThroughput, type ReferenceServer, referenceModels, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PROFILE = { stepBaseMs: 2, stepPerSeqMs: 0.1, slots: 2, prefillBaseMs: 2, prefillPerTokenMs: 0 };
let server: ReferenceServer;
let keyed: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({
    models: [
      { kind: "model", id: "m", profile: PROFILE },
      { kind: "model", id: "limited", profile: { ...PROFILE, rateLimit: { requestsPerSecond: 1, burst: 1 } } },
      {
        kind: "gateway",
        id: "gw",
        defaultProvider: "a",
        providers: [
          { name: "a", profile: PROFILE, fallbackEvery: 2 },
          { name: "b", profile: PROFILE },
        ],
      },
    ],
  });
  keyed = await startReferenceServer({ models: [{ kind: "model", id: "m", profile: PROFILE }], apiKey: "k1" });
});
afterAll(async () => {
  await server.close();
  await keyed.close();
});

const post = (base: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const events = (text: string) =>
  text
    .split("\n\n")
    .filter((e) => e.startsWith("data: "))
    .map((e) => e.slice(6));

describe("reference server", () => {
  it("streams OpenAI chunks with usage and [DONE], and answers non-stream requests", async () => {
    const res = await post(server.url, {
      model: "m",
      messages: [{ role: "user", content: "x".repeat(40) }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 5,
    });
    const data = events(await res.text());
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks.filter((c) => c.choices[0]?.delta?.content)).toHaveLength(5);
    expect(chunks.at(-1).usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    const plain = await (
      await post(server.url, { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 3 })
    ).json();
    expect(plain.usage.completion_tokens).toBe(3);
    const models = await (await fetch(`${server.url}/models`)).json();
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(["m", "limited", "gw"]);
  });

  it("answers 429 with retry-after past the rate limit, and 404 for an unknown model", async () => {
    const body = { model: "limited", messages: [{ role: "user", content: "hi" }], max_tokens: 1 };
    expect((await post(server.url, body)).status).toBe(200);
    const limited = await post(server.url, body);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await post(server.url, { ...body, model: "nope" })).status).toBe(404);
  });

  it("serves the pinned provider, names it, and falls back every k-th request when told to", async () => {
    const served: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await post(server.url, {
        model: "gw",
        provider: { order: ["a"], allow_fallbacks: false },
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        max_tokens: 1,
      });
      expect(res.headers.get("x-litellm-attempted-fallbacks")).toBe(i % 2 === 1 ? "1" : "0");
      served.push(JSON.parse(events(await res.text())[0] as string).provider);
    }
    expect(served).toEqual(["a", "b", "a", "b"]);
    expect(server.fallbacks.filter((f) => f.pinned === "a")).toHaveLength(2);
  });

  it("requires the API key when started with one", async () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 1 };
    expect((await post(keyed.url, body)).status).toBe(401);
    expect((await post(keyed.url, body, { authorization: "Bearer k1" })).status).toBe(200);
  });

  it("frees a slot when the client goes away", async () => {
    const stats = server.engine("m").stats;
    const res = await post(server.url, {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      max_tokens: 10_000,
    });
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 50));
    expect(stats.inFlight).toBe(0);
    expect(server.engine("m").occupied).toBe(0);
  });

  it("records when it wrote each response's first and last token, between the client's send and its reads", async () => {
    server.takeTimings();
    const epoch = () => performance.timeOrigin + performance.now();
    const sentAtMs = epoch();
    const res = await post(server.url, {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      max_tokens: 6,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let firstReadAtMs: number | null = null;
    let text = "";
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      firstReadAtMs ??= epoch();
      text += new TextDecoder().decode(part.value);
    }
    const lastReadAtMs = epoch();
    const [timing] = server.takeTimings();
    const id = JSON.parse(events(text)[0] as string).id;
    expect(timing?.responseId).toBe(id);
    expect(timing?.tokens).toBe(6);
    const t = timing as NonNullable<typeof timing>;
    // Causal order on one epoch clock: sent, arrived, first token written, ..., last written, last read.
    expect(t.arrivedAtMs).toBeGreaterThanOrEqual(sentAtMs);
    expect(t.firstTokenAtMs).toBeGreaterThan(t.arrivedAtMs);
    expect(t.lastTokenAtMs).toBeGreaterThan(t.firstTokenAtMs as number);
    expect(t.lastTokenAtMs).toBeLessThanOrEqual(lastReadAtMs);
    expect(firstReadAtMs).not.toBeNull();
    expect(server.takeTimings()).toEqual([]);
  });

  it("derives its truth from the parameters: queueing past the slots, aggregate flat", () => {
    const at = (concurrency: number) => expectedThroughput(PROFILE, { concurrency, promptTokens: 10, maxTokens: 11 });
    expect(at(1).e2eMs).toBeCloseTo(2 + 10 * 2.1);
    expect(at(4).aggregateOutputTokensPerSecond).toBeCloseTo(at(2).aggregateOutputTokensPerSecond);
    expect(at(4).e2eMs).toBeCloseTo(2 * at(2).e2eMs);
    expect(referenceModels().length).toBeGreaterThanOrEqual(4);
  });
});
