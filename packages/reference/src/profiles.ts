/**
 * @module The named reference profiles that `npm start` sweeps, and their targets. Every one is simulated.
 * Prefill costs `prefillBaseMs + prefillPerTokenMs x prompt tokens` per request, so TTFT grows with the
 * prompt as on a real engine: in one stream the small models take in 4,000 prompt tokens a second,
 * the large ones 2,500 (3,300 on the dedicated endpoint), the reasoning model 3,300, and the
 * rate-limited and gateway providers (fast serving hardware) 6,700 to 10,000. Two routes of the small
 * model differ only in a prefix cache, for the conversation scenario.
 */
import type { ModelSpec, StreamProfile } from "./stream-profile.ts";

/** A small fast model with an early knee: 4 slots, cheap steps, 4,000 prompt tokens/s of prefill. */
export const SMALL_FAST: StreamProfile = {
  stepBaseMs: 2,
  stepPerSeqMs: 0.25,
  slots: 4,
  prefillBaseMs: 4,
  prefillPerTokenMs: 0.25,
  tokensPerChunk: 1,
  roleChunk: true,
  tools: { dialect: "llamacpp" },
};
/** A large model with a late knee: 32 slots, slower steps that grow little with the batch, 2,500 prompt tokens/s of prefill. */
export const LARGE_SLOW: StreamProfile = {
  stepBaseMs: 4,
  stepPerSeqMs: 0.06,
  slots: 32,
  prefillBaseMs: 10,
  prefillPerTokenMs: 0.4,
  tokensPerChunk: 2,
  tools: { dialect: "vllm" },
};
/** A provider that answers 429 past about 40 requests a second. */
export const RATE_LIMITED: StreamProfile = {
  stepBaseMs: 3,
  stepPerSeqMs: 0.15,
  slots: 16,
  prefillBaseMs: 6,
  prefillPerTokenMs: 0.1,
  rateLimit: { requestsPerSecond: 40, burst: 20 },
};
/** Gateway providers: alpha is quick, beta slower; beta falls back to alpha every 50th request. */
export const GATEWAY_ALPHA: StreamProfile = {
  stepBaseMs: 3,
  stepPerSeqMs: 0.2,
  slots: 8,
  prefillBaseMs: 8,
  prefillPerTokenMs: 0.1,
};
export const GATEWAY_BETA: StreamProfile = {
  stepBaseMs: 4,
  stepPerSeqMs: 0.1,
  slots: 16,
  prefillBaseMs: 10,
  prefillPerTokenMs: 0.15,
};

/** A reasoning model served like vLLM: 24 tokens of `reasoning_content` before the answer. */
export const REASONING: StreamProfile = {
  stepBaseMs: 2,
  stepPerSeqMs: 0.5,
  slots: 8,
  prefillBaseMs: 6,
  prefillPerTokenMs: 0.3,
  reasoning: { tokens: 24, field: "reasoning_content" },
};
/** A third gateway provider that meters cost and reports 60 % of every prompt cached, as OpenRouter reports it. */
export const GATEWAY_GAMMA: StreamProfile = {
  stepBaseMs: 2.5,
  stepPerSeqMs: 0.15,
  slots: 16,
  prefillBaseMs: 8,
  prefillPerTokenMs: 0.1,
  meter: { inputPerMillionUsd: 0.2, outputPerMillionUsd: 0.6 },
  cachedPromptShare: 0.6,
};
/** The small model again, on an API billed by list price: the small model's reference route, tool calls streamed as OpenAI does. */
export const SMALL_PRICED: StreamProfile = {
  stepBaseMs: 2.5,
  stepPerSeqMs: 0.3,
  slots: 8,
  prefillBaseMs: 5,
  prefillPerTokenMs: 0.25,
  tools: { dialect: "openai" },
};
/**
 * The rates at which `ref-small-sloppy` breaks tool calls, each drawn per answer (./tools.ts): about
 * one call in four has arguments that are not valid against the tool's schema (truncated, a required
 * argument missing, an enum value outside the schema), as routes with a broken chat template or tool
 * parser do.
 */
export const SLOPPY_TOOL_BREAKAGES = {
  truncatedArguments: 0.1,
  missingRequired: 0.1,
  enumOutside: 0.1,
  stopAfterCall: 0.1,
  dropSecondParallel: 0.25,
};
/**
 * The small model again, on a route whose tool calls break (a tool parser that cuts arguments, drops
 * fields and parallel calls, and says `stop` after a call): the list-priced API's engine, vLLM's
 * stream. Everything else about it is the reference's.
 */
export const SMALL_SLOPPY: StreamProfile = {
  ...SMALL_PRICED,
  tools: { dialect: "vllm", breakages: SLOPPY_TOOL_BREAKAGES },
};
/**
 * The small model again, quantized: the list-priced API's engine, but each word it writes moves one
 * rank in the model's word distribution half the time (`distortion`): fast and cheap, and not the
 * same model. The same-model test's canary shows it.
 */
export const SMALL_QUANTIZED: StreamProfile = {
  ...SMALL_PRICED,
  distortion: { rankShiftProbability: 0.5 },
};
/**
 * The small model again, on an API with a prefix cache (vLLM's automatic prefix caching, 16-token
 * blocks): a prompt's leading blocks that an earlier request prefilled cost nothing, and usage reports
 * them as `prompt_tokens_details.cached_tokens`. A conversation's later turns prefill only the last
 * answer and the new question.
 */
export const SMALL_CACHED: StreamProfile = {
  stepBaseMs: 2.5,
  stepPerSeqMs: 0.3,
  slots: 8,
  prefillBaseMs: 4,
  prefillPerTokenMs: 0.25,
  prefixCache: { blockTokens: 16 },
};
/** The same small model on an API without a prompt cache: every prompt token is prefilled, so a conversation's TTFT grows with its history. */
export const SMALL_UNCACHED: StreamProfile = {
  stepBaseMs: 2.5,
  stepPerSeqMs: 0.3,
  slots: 8,
  prefillBaseMs: 4,
  prefillPerTokenMs: 0.25,
};
/** The large model again, on a dedicated endpoint billed by the hour: 16 slots, quick steps, 3,300 prompt tokens/s of prefill. */
export const LARGE_DEDICATED: StreamProfile = {
  stepBaseMs: 3,
  stepPerSeqMs: 0.1,
  slots: 16,
  prefillBaseMs: 10,
  prefillPerTokenMs: 0.3,
};

/**
 * The SLO the demo judges the reference targets by, scaled to their simulated speed (hundreds of tok/s,
 * TTFTs of ms): at 20 tok/s and 2 s every simulated level would pass and capacity would say nothing.
 */
export const REFERENCE_SLO = { minOutputTokensPerSecond: 120, maxTtftMs: 250 };

/**
 * The SLO of the demo's `rag` scenario (2,000-token prompts): prefill alone takes the reference targets
 * 0.2 to 0.8 s there, and 24 tokens over that are 20 to 45 tok/s a user, so the chat SLO would fail every level.
 */
export const REFERENCE_RAG_SLO = { minOutputTokensPerSecond: 20, maxTtftMs: 1500 };

/**
 * The open-loop reference target's request rates, per second: ref-small-fast saturates at about 36
 * requests/s at the demo's chat workload (150 prompt tokens, 24 out; `expectedSaturationRequestsPerSecond`),
 * so the top rate (88 % of it) nears saturation, and the lowest (44 %) is well under it. Not lower:
 * a level sends `REFERENCE_OPEN_REQUESTS`, so the lowest rate's level is the longest (1.5 s at 16/s).
 */
export const REFERENCE_OPEN_RATES = [16, 24, 32];

/**
 * Requests per level of the open-loop reference target: each level sends this many on its schedule
 * (1.5 s at 16/s, 1 s at 24/s, 0.75 s at 32/s), a few over the open loop's minimum
 * (`MIN_OPEN_LOOP_REQUESTS`, 20), so every rate is measured on as many sends, in 3.25 s a run (at
 * 2 s a level, as before, 6 s).
 */
export const REFERENCE_OPEN_REQUESTS = 24;

/** Seconds per level of the newer reference targets: a closed loop for a fixed time keeps the demo short. */
export const REFERENCE_LEVEL_SECONDS = 0.25;

/** Declared prices of the reference targets that have one (simulated, like their speed). */
export const REFERENCE_PRICING = {
  smallPriced: { inputPerMillionUsd: 0.05, outputPerMillionUsd: 0.08 },
  gatewayGamma: { inputPerMillionUsd: 0.1, outputPerMillionUsd: 0.4 },
  largeDedicated: { hourlyUsd: 1.2 },
};

export function referenceModels(): ModelSpec[] {
  return [
    { kind: "model", id: "ref-small-fast", profile: SMALL_FAST },
    { kind: "model", id: "ref-large-slow", profile: LARGE_SLOW },
    { kind: "model", id: "ref-ratelimited", profile: RATE_LIMITED },
    {
      kind: "gateway",
      id: "ref-gateway",
      defaultProvider: "alpha",
      providers: [
        { name: "alpha", profile: GATEWAY_ALPHA },
        { name: "beta", profile: GATEWAY_BETA, fallbackEvery: 50 },
        { name: "gamma", profile: GATEWAY_GAMMA },
      ],
    },
    { kind: "model", id: "ref-reasoning", profile: REASONING },
    { kind: "model", id: "ref-small-priced", profile: SMALL_PRICED },
    { kind: "model", id: "ref-small-quantized", profile: SMALL_QUANTIZED },
    { kind: "model", id: "ref-large-dedicated", profile: LARGE_DEDICATED },
    { kind: "model", id: "ref-small-cached", profile: SMALL_CACHED },
    { kind: "model", id: "ref-small-uncached", profile: SMALL_UNCACHED },
    { kind: "model", id: "ref-small-sloppy", profile: SMALL_SLOPPY },
  ];
}

/** Config targets for the reference models at baseURL (the shape of docs/config.md). */
export function referenceTargets(baseURL: string) {
  return [
    {
      id: "ref-small-fast",
      label: "Small fast model, early knee (simulated)",
      baseURL,
      model: "ref-small-fast",
      modelKey: "ref-small",
      route: { gateway: "direct" as const },
    },
    {
      id: "ref-large-slow",
      label: "Large model, late knee (simulated)",
      baseURL,
      model: "ref-large-slow",
      modelKey: "ref-large",
      route: { gateway: "direct" as const },
      reference: true,
    },
    {
      id: "ref-ratelimited",
      label: "Rate-limited provider (simulated)",
      baseURL,
      model: "ref-ratelimited",
      route: { gateway: "direct" as const },
    },
    {
      id: "ref-gateway-alpha",
      label: "Gateway pinned to alpha (simulated)",
      baseURL,
      model: "ref-gateway",
      route: { gateway: "openrouter" as const, provider: "alpha" },
    },
    {
      id: "ref-gateway-beta",
      label: "Gateway pinned to beta, falls back now and then (simulated)",
      baseURL,
      model: "ref-gateway",
      route: { gateway: "openrouter" as const, provider: "beta" },
    },
    {
      id: "ref-gateway-gamma",
      label: "Gateway pinned to gamma: metered cost, most of the prompt cached (simulated)",
      baseURL,
      model: "ref-gateway",
      route: { gateway: "openrouter" as const, provider: "gamma" },
      pricing: REFERENCE_PRICING.gatewayGamma,
      workload: { levelDurationSeconds: REFERENCE_LEVEL_SECONDS },
    },
    {
      id: "ref-reasoning",
      label: "Reasoning model: reasoning first, then the answer (simulated)",
      baseURL,
      model: "ref-reasoning",
      route: { gateway: "direct" as const },
      workload: { levelDurationSeconds: REFERENCE_LEVEL_SECONDS },
    },
    {
      id: "ref-small-priced",
      label: "Small model on a list-priced API (simulated)",
      baseURL,
      model: "ref-small-priced",
      modelKey: "ref-small",
      route: { gateway: "direct" as const },
      pricing: REFERENCE_PRICING.smallPriced,
      // The maker's own API: the small model's other routes are compared with it (same model?).
      reference: true,
      workload: { levelDurationSeconds: REFERENCE_LEVEL_SECONDS },
    },
    {
      id: "ref-small-quantized",
      label: "Small model, quantized: fast, and a distorted word distribution (simulated)",
      baseURL,
      model: "ref-small-quantized",
      modelKey: "ref-small",
      route: { gateway: "direct" as const },
      pricing: REFERENCE_PRICING.smallPriced,
      workload: { levelDurationSeconds: REFERENCE_LEVEL_SECONDS },
    },
    {
      id: "ref-large-dedicated",
      label: "Large model on a dedicated endpoint billed by the hour (simulated)",
      baseURL,
      model: "ref-large-dedicated",
      modelKey: "ref-large",
      route: { gateway: "direct" as const },
      pricing: REFERENCE_PRICING.largeDedicated,
      workload: { levelDurationSeconds: REFERENCE_LEVEL_SECONDS },
    },
    {
      id: "ref-small-open",
      label: "Small fast model under Poisson arrivals: an open loop of request rates (simulated)",
      baseURL,
      model: "ref-small-fast",
      modelKey: "ref-small",
      route: { gateway: "direct" as const },
      workload: {
        arrival: { mode: "poisson" as const, ratesPerSecond: REFERENCE_OPEN_RATES },
        requestsPerLevel: REFERENCE_OPEN_REQUESTS,
      },
    },
    {
      id: "ref-small-cached",
      label: "Small model on an API with a prefix cache (simulated)",
      baseURL,
      model: "ref-small-cached",
      modelKey: "ref-small",
      route: { gateway: "direct" as const },
    },
    {
      id: "ref-small-uncached",
      label: "Small model on an API without a prompt cache (simulated)",
      baseURL,
      model: "ref-small-uncached",
      modelKey: "ref-small",
      route: { gateway: "direct" as const },
    },
  ];
}

/**
 * The small model's route that breaks tool calls (`SMALL_SLOPPY`), as a config target: judged against
 * the small model's reference route `ref-small-priced`, its tool-call verdict is `worse`. Not among
 * `referenceTargets` (whose sweeps tests pin): the demo adds it (packages/cli's `demoTargets`).
 */
export function sloppyToolsTarget(baseURL: string) {
  return {
    id: "ref-small-sloppy",
    label: "Small model on a route that breaks tool calls (simulated)",
    baseURL,
    model: "ref-small-sloppy",
    modelKey: "ref-small",
    route: { gateway: "direct" as const },
    pricing: REFERENCE_PRICING.smallPriced,
    workload: { levelDurationSeconds: REFERENCE_LEVEL_SECONDS },
  };
}
