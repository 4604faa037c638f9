/** @module A level's cost and SLO figures: the default SLO, the tokens of requests that met it (goodput), the cost per million output tokens. */
import type { LevelCost, PricingRecord, Sample, SloFigures, SloRecord } from "../run/index.ts";
import { percentile } from "./distribution.ts";

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
 * The SLO's figures over every measured request (docs/methodology.md#the-slo-and-failed-requests): a
 * request that did not come back ok missed the SLO, so it enters TTFT's p95 as +Infinity and per-stream
 * output's p50 as 0 tok/s; so does an ok request without the figure. A route that fails its slowest
 * requests instead of serving them late reads no faster for it. Null without a request.
 */
export function sloFigures(samples: readonly Sample[]): SloFigures | null {
  if (samples.length === 0) return null;
  const ok = (s: Sample) => s.outcome === "ok";
  const ttft = samples.map((s) => (ok(s) && s.ttftMs !== null ? s.ttftMs : Number.POSITIVE_INFINITY));
  const perStream = samples.map((s) => (ok(s) ? (s.outputTokensPerSecond ?? 0) : 0));
  const ttftP95Ms = percentile(
    ttft.sort((a, b) => a - b),
    0.95,
  );
  return {
    requests: samples.length,
    failed: samples.filter((s) => !ok(s)).length,
    ttftP95Ms: Number.isFinite(ttftP95Ms) ? ttftP95Ms : null,
    perStreamOutputTokensPerSecondP50: percentile(
      perStream.sort((a, b) => a - b),
      0.5,
    ),
  };
}

/** Whether a level's SLO figures meet the SLO: per-stream p50 at least its minimum, TTFT p95 (+Infinity when null) within its limit. */
export function meetsSloOn(figures: SloFigures, slo: SloRecord): boolean {
  const ttft = figures.ttftP95Ms ?? Number.POSITIVE_INFINITY;
  return figures.perStreamOutputTokensPerSecondP50 >= slo.minOutputTokensPerSecond && withinTtftLimit(slo, ttft);
}

/**
 * Goodput, tok/s: output tokens of the ok requests that each met the SLO over the wall time, times the
 * share of requests that came back ok. A failed request is a miss; in a closed loop its early end
 * frees its worker for another request, and the factor charges it about an average request's time, so
 * a route that fails its slowest requests where it would have served them late gains nothing by it.
 * Null without an ok request or a wall time.
 */
export function goodput(samples: readonly Sample[], slo: SloRecord, wallTimeMs: number): number | null {
  const ok = samples.filter((s) => s.outcome === "ok");
  if (ok.length === 0 || wallTimeMs <= 0) return null;
  return (goodputTokens(ok, slo) / (wallTimeMs / 1000)) * (ok.length / samples.length);
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
