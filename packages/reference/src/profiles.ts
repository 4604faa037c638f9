/** @module The named reference profiles that `npm start` sweeps, and their targets. Every one is simulated. */
import type { ModelSpec, StreamProfile } from "./server.ts";

/** A small fast model with an early knee: 4 slots, cheap steps. */
export const SMALL_FAST: StreamProfile = {
  stepBaseMs: 2,
  stepPerSeqMs: 0.25,
  slots: 4,
  prefillBaseMs: 4,
  prefillPerTokenMs: 0.02,
  tokensPerChunk: 1,
  roleChunk: true,
};
/** A large model with a late knee: 32 slots, slower steps that grow little with the batch. */
export const LARGE_SLOW: StreamProfile = {
  stepBaseMs: 4,
  stepPerSeqMs: 0.06,
  slots: 32,
  prefillBaseMs: 10,
  prefillPerTokenMs: 0.1,
  tokensPerChunk: 2,
};
/** A provider that answers 429 past about 40 requests a second. */
export const RATE_LIMITED: StreamProfile = {
  stepBaseMs: 3,
  stepPerSeqMs: 0.15,
  slots: 16,
  prefillBaseMs: 6,
  prefillPerTokenMs: 0.02,
  rateLimit: { requestsPerSecond: 40, burst: 20 },
};
/** Gateway providers: alpha is quick, beta slower; beta falls back to alpha every 50th request. */
export const GATEWAY_ALPHA: StreamProfile = {
  stepBaseMs: 3,
  stepPerSeqMs: 0.2,
  slots: 8,
  prefillBaseMs: 8,
  prefillPerTokenMs: 0.02,
};
export const GATEWAY_BETA: StreamProfile = {
  stepBaseMs: 4,
  stepPerSeqMs: 0.1,
  slots: 16,
  prefillBaseMs: 10,
  prefillPerTokenMs: 0.02,
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
      ],
    },
  ];
}

/** Config targets for the reference models at baseURL (SPEC section 4 shape). */
export function referenceTargets(baseURL: string) {
  return [
    {
      id: "ref-small-fast",
      label: "Small fast model, early knee (simulated)",
      baseURL,
      model: "ref-small-fast",
      route: { gateway: "direct" as const },
    },
    {
      id: "ref-large-slow",
      label: "Large model, late knee (simulated)",
      baseURL,
      model: "ref-large-slow",
      route: { gateway: "direct" as const },
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
  ];
}
