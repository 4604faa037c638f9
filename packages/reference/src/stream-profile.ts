/**
 * @module What a reference model is: how it streams on top of its engine (`StreamProfile`), how it is
 * served (a model, or a gateway's providers), and the usage it reports for an answer.
 */
import type { WordDistortion } from "@kneeboard/core/synthetic/words";
import type { EngineProfile } from "./engine.ts";
import type { PrefixCacheOptions } from "./prefix-cache.ts";
import type { ToolsProfile } from "./tools.ts";

/** How one model streams, on top of its engine. */
export interface StreamProfile extends EngineProfile {
  /** Tokens per SSE chunk (default 1). */
  tokensPerChunk?: number;
  /** Send a role-only chunk at once, before prefill. */
  roleChunk?: boolean;
  /** Honour stream_options.include_usage (default true). */
  sendUsage?: boolean;
  /** Token bucket: past it, 429 with retry-after. */
  rateLimit?: { requestsPerSecond: number; burst: number };
  /**
   * A reasoning model: the first `tokens` generated tokens stream as reasoning deltas in `field`
   * (`reasoning` as OpenRouter sends them, `reasoning_content` as vLLM and DeepSeek do), then the
   * answer; usage reports them as `completion_tokens_details.reasoning_tokens`. At most
   * `max_tokens - 1` tokens reason, so every answer has at least one token of content.
   */
  reasoning?: { tokens: number; field: "reasoning" | "reasoning_content" };
  /** A gateway that meters cost: usage.cost = (prompt x input + completion x output) / 1e6, USD. */
  meter?: { inputPerMillionUsd: number; outputPerMillionUsd: number };
  /** Report this share of the prompt as cached (`prompt_tokens_details.cached_tokens`, rounded down), as OpenRouter does. */
  cachedPromptShare?: number;
  /**
   * A prefix cache (./prefix-cache.ts): the leading whole blocks of a prompt an earlier request
   * prefilled cost no prefill, and are reported as `prompt_tokens_details.cached_tokens` unless
   * `report` is false (a cache the API does not report). Without it every prompt token is prefilled
   * (`prefillPerTokenMs` each), so TTFT grows with the prompt, and no cached tokens are reported.
   */
  prefixCache?: PrefixCacheOptions & { report?: boolean };
  /**
   * Deterministic refusals, answered with `status` (and `retry-after` when `retryAfterSeconds` is set):
   * every `every`-th request to the model (1-based), and/or every request arriving while
   * `whenInFlightAtLeast` requests are being served.
   */
  refuse?: { status: number; every?: number; whenInFlightAtLeast?: number; retryAfterSeconds?: number };
  /** Accept requests and never answer them: an endpoint that hangs. */
  stall?: boolean;
  /**
   * Every `every`-th streamed request to the model (1-based) breaks after `afterTokens` tokens:
   * `stall` holds the connection open with no byte more (hosted providers under load), `error` sends
   * OpenRouter's mid-stream error, `{"error": {...}}` with `finish_reason: "error"` in a data line,
   * and ends the stream.
   */
  midStream?: { every: number; afterTokens: number; fault: "stall" | "error" };
  /**
   * A slow tail, repeating every `period` requests to the model (by arrival, 1-based): request k waits
   * `delaysMs[(k - 1) % period]` ms (absent: 0) before its prefill, as a request stuck behind a long
   * one does, and comes back late. With `giveUpAfterMs`, a request whose wait reaches it is answered
   * HTTP 504 at that time instead, as a gateway with a first-byte timeout does: a route that fails its
   * slowest requests rather than serving them late. `tailFailures` counts those 504s.
   */
  slowTail?: { period: number; delaysMs: readonly number[]; giveUpAfterMs?: number };
  /** Characters of prompt text per prompt token this model counts (default 4), as tokenizers differ. */
  charsPerPromptToken?: number;
  /**
   * Above temperature 0 every model writes words drawn from the known word distribution
   * (`@kneeboard/core/synthetic/words`), one word a token; with this, from a distorted copy of it
   * (each drawn word's rank moved one place with the given probability), as a quantized model would.
   * At temperature 0 every model writes " tok" tokens, as the throughput sweeps need.
   */
  distortion?: WordDistortion;
  /**
   * How the model answers a request with `tools` or a `json_schema` response format (./tools.ts):
   * default, faithfully as the tool-call suite expects, streamed as OpenAI does.
   */
  tools?: ToolsProfile;
}

/** Tokens of a request's answer spent reasoning: the profile's count, leaving at least one token of content. */
export function reasoningTokensOf(profile: StreamProfile, maxTokens: number): number {
  return profile.reasoning ? Math.max(0, Math.min(profile.reasoning.tokens, maxTokens - 1)) : 0;
}

/** The usage object of one finished request, with the details and cost the profile reports. */
export function usageOf(
  profile: StreamProfile,
  promptTokens: number,
  completionTokens: number,
  cachedTokens: number,
): Record<string, unknown> {
  const usage: Record<string, unknown> = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (profile.meter)
    usage.cost =
      (promptTokens * profile.meter.inputPerMillionUsd + completionTokens * profile.meter.outputPerMillionUsd) / 1e6;
  if (profile.cachedPromptShare !== undefined)
    usage.prompt_tokens_details = { cached_tokens: Math.floor(promptTokens * profile.cachedPromptShare) };
  if (profile.prefixCache && profile.prefixCache.report !== false)
    usage.prompt_tokens_details = { cached_tokens: cachedTokens };
  if (profile.reasoning)
    usage.completion_tokens_details = { reasoning_tokens: reasoningTokensOf(profile, completionTokens) };
  return usage;
}

/** A model served directly, or a gateway model served by one of several providers. */
export type ModelSpec =
  | { kind: "model"; id: string; profile: StreamProfile }
  | {
      kind: "gateway";
      id: string;
      defaultProvider: string;
      providers: { name: string; profile: StreamProfile; fallbackEvery?: number }[];
    };
