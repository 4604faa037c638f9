/** @module Chunks into the result and failed responses into outcomes, alone: no server, parsed chunks and bodies given. */
import { describe, expect, it } from "vitest";
import { type ChunkFields, ChunkReader, cachedTokensOf, failedResponse, type GatewayChunk } from "./chunks.ts";

const emptyFields = (): ChunkFields => ({
  contentChunks: [],
  firstAnswerMs: null,
  completionTokens: null,
  promptTokens: null,
  reasoningTokens: null,
  cachedPromptTokens: null,
  costUsd: null,
  finishReason: null,
  responseId: null,
});

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}, finish: string | null = null) =>
  ({
    id: "c1",
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  }) as unknown as GatewayChunk;

/** A reader over fresh fields, with what it reported broken and how often the first token was told. */
function reader() {
  const fields = emptyFields();
  const broken: string[] = [];
  const told = { firstTokens: 0 };
  const chunks = new ChunkReader(fields, (error) => broken.push(error), {
    firstTokenRead: () => told.firstTokens++,
  });
  return { fields, broken, told, chunks };
}

describe("cached prompt tokens", () => {
  it("are read in OpenAI's, Anthropic's and DeepSeek's spellings, OpenAI's first; null when none is reported", () => {
    expect(cachedTokensOf({ prompt_tokens_details: { cached_tokens: 12 }, cache_read_input_tokens: 5 })).toBe(12);
    expect(cachedTokensOf({ cache_read_input_tokens: 5 })).toBe(5);
    expect(cachedTokensOf({ prompt_tokens_details: { cached_tokens: null }, prompt_cache_hit_tokens: 7 })).toBe(7);
    expect(cachedTokensOf({ prompt_tokens: 10 })).toBeNull();
  });

  it("come from the usage chunk; the answer's text is kept only when asked, reasoning left out", () => {
    const { fields, chunks } = reader();
    fields.answerText = "";
    chunks.apply(chunk({ reasoning_content: "hmm" }));
    chunks.apply(chunk({ content: "Hello" }));
    chunks.apply(chunk({ content: ", world" }, {}, "stop"));
    chunks.apply({ id: "c1", choices: [], usage: { prompt_tokens: 40, prompt_cache_hit_tokens: 32 } } as never);
    expect(fields.answerText).toBe("Hello, world");
    expect(fields.cachedPromptTokens).toBe(32);
    const plain = reader();
    plain.chunks.apply(chunk({ content: "Hello" }));
    expect(plain.fields.answerText).toBeUndefined();
  });
});

describe("ChunkReader", () => {
  it("reports data that is not a JSON object (data: null, a bare number) as malformed, never throws", () => {
    const { fields, broken, chunks } = reader();
    chunks.event(null, null);
    chunks.event(7, null);
    expect(broken).toEqual([
      "malformed SSE data: a chunk must be a JSON object, not null",
      "malformed SSE data: a chunk must be a JSON object, not 7",
    ]);
    expect(fields.contentChunks).toEqual([]);
  });

  it("records content and reasoning chunks at their read's time, the first answer, and tells the first token once", () => {
    const { fields, told, chunks } = reader();
    chunks.readAtMs = 10;
    chunks.event(chunk({ role: "assistant" }), null);
    chunks.event(chunk({ reasoning: "think" }), null);
    chunks.readAtMs = 20;
    chunks.event(chunk({ reasoning_content: "more" }), null);
    chunks.event(chunk({ content: "héllo" }), null);
    chunks.readAtMs = 30;
    chunks.event(chunk({ content: "" }, {}, "stop"), null);
    expect(fields.contentChunks).toEqual([
      { tMs: 10, chars: 5 },
      { tMs: 20, chars: 4 },
      { tMs: 20, chars: 5 },
    ]);
    expect(fields.firstAnswerMs).toBe(20);
    expect(fields.finishReason).toBe("stop");
    expect(fields.responseId).toBe("c1");
    expect(told.firstTokens).toBe(1);
  });

  it("reads usage with its details and cost, and keeps the first chunk that named a provider", () => {
    const { fields, chunks } = reader();
    chunks.event({ id: "first", choices: [] }, null);
    chunks.event(chunk({ content: "a" }, { id: "later", provider: "DeepInfra" }), null);
    chunks.event(chunk({ content: "b" }, { provider: "Other" }), null);
    chunks.event(
      {
        id: "c1",
        choices: [],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 6,
          completion_tokens_details: { reasoning_tokens: 4 },
          prompt_tokens_details: { cached_tokens: 2 },
          cost: 0.0012,
        },
      },
      null,
    );
    expect(fields.responseId).toBe("first");
    expect(chunks.namingChunk?.provider).toBe("DeepInfra");
    expect([fields.promptTokens, fields.completionTokens, fields.reasoningTokens, fields.cachedPromptTokens]).toEqual([
      10, 6, 4, 2,
    ]);
    expect(fields.costUsd).toBe(0.0012);
  });

  it("reports a mid-stream error (an error event, or a chunk carrying error) and malformed data as broken", () => {
    const { fields, broken, chunks } = reader();
    chunks.event({ error: { message: "overloaded" } }, null);
    chunks.event({ message: "gone" }, "error");
    // OpenRouter's: the error beside a choice that finished with "error".
    chunks.event(
      {
        id: "c",
        error: { code: 502, message: "Provider returned error", metadata: { raw: "upstream died" } },
        choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
      },
      null,
    );
    chunks.event({ id: "c", choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }] }, null);
    chunks.event({ error: "plain" }, null);
    chunks.malformed("malformed SSE data: Unexpected token");
    expect(broken).toEqual([
      "stream error: overloaded",
      "stream error: gone",
      "stream error: Provider returned error (code 502): upstream died",
      "stream error: the stream finished with finish_reason error",
      'stream error: "plain"',
      "malformed SSE data: Unexpected token",
    ]);
    expect(fields.contentChunks).toEqual([]);
  });
});

describe("failedResponse", () => {
  it("maps 429 to rate_limited with its retry-after, in the SDK's words", () => {
    expect(failedResponse(429, { "retry-after": "7" }, JSON.stringify({ error: { message: "slow down" } }))).toEqual({
      outcome: "rate_limited",
      httpStatus: 429,
      retryAfterSeconds: 7,
      error: "HTTP 429: 429 slow down",
    });
    const dated = failedResponse(429, { "retry-after": new Date(10_000).toUTCString() }, "", 4_000);
    expect(dated.retryAfterSeconds).toBe(6);
  });

  it("maps any other status to http_error, a text body or none", () => {
    expect(failedResponse(503, {}, "down")).toMatchObject({ outcome: "http_error", error: "HTTP 503: 503 down" });
    expect(failedResponse(400, {}, "").error).toBe("HTTP 400: 400 status code (no body)");
  });
});
