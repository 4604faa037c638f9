/** @module A level's cost and SLO figures: the default SLO, the tokens of requests that met it (goodput), the cost per million output tokens. */
import type { LevelCost, PricingRecord, Sample, SloRecord } from "../run/index.ts";

/** The SLO when the workload sets none: 20 tok/s per user, TTFT p95 within 2 s. */
export const DEFAULT_SLO: SloRecord = { minOutputTokensPerSecond: 20, maxTtftMs: 2000 };

/** Whether a TTFT (ms) is within the SLO's limit; every TTFT is when the SLO sets none (`maxTtftMs: null`). */
export const withinTtftLimit = (slo: SloRecord, ttftMs: number): boolean =>
  slo.maxTtftMs === null || ttftMs <= slo.maxTtftMs;

/** Output tokens of the ok samples that each met the SLO: their own output tok/s and their own TTFT. */
export function goodputTokens(ok: Sample[], slo: SloRecord): number {
  let tokens = 0;
  for (const s of ok) {
    const fastEnough = s.outputTokensPerSecond !== null && s.outputTokensPerSecond >= slo.minOutputTokensPerSecond;
    const soonEnough = s.ttftMs !== null && withinTtftLimit(slo, s.ttftMs);
    if (fastEnough && soonEnough) tokens += s.completionTokens ?? 0;
  }
  return tokens;
}

/**
 * A level's cost per million output tokens, USD. Metered: the gateway's `costUsd` summed over the ok
 * samples that carry it, over their output tokens. Declared from list prices: the mean ok request's
 * input and output cost per output token (`output + input x promptTokens / completionTokens`, over
 * the samples that report both counts); from an hourly price: `hourlyUsd / (aggregate x 3600)`.
 */
export function levelCost(ok: Sample[], aggregate: number | null, pricing: PricingRecord | null): LevelCost {
  let meteredUsd = 0;
  let meteredTokens = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  for (const s of ok) {
    if (s.costUsd !== null && s.completionTokens !== null) {
      meteredUsd += s.costUsd;
      meteredTokens += s.completionTokens;
    }
    if (s.promptTokens !== null && s.completionTokens !== null) {
      promptTokens += s.promptTokens;
      completionTokens += s.completionTokens;
    }
  }
  let declared: number | null = null;
  if (pricing && "hourlyUsd" in pricing) {
    declared = aggregate !== null && aggregate > 0 ? (pricing.hourlyUsd / (aggregate * 3600)) * 1e6 : null;
  } else if (pricing && completionTokens > 0) {
    declared = pricing.outputPerMillionUsd + (pricing.inputPerMillionUsd * promptTokens) / completionTokens;
  }
  return {
    meteredUsdPerMillionOutputTokens: meteredTokens > 0 ? (meteredUsd / meteredTokens) * 1e6 : null,
    declaredUsdPerMillionOutputTokens: declared,
  };
}
