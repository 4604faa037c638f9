/**
 * @module What a sweep of a reference target should find for the reader's figures, from its parameters
 * alone: answer TTFT, SLO verdict, goodput, capacity, metered and declared cost, cached prompt share.
 * Within the engine's slots every request of a closed-loop level is alike, so the level meets the SLO
 * wholly or not at all and its goodput is its aggregate or 0. Past the slots requests queue, but the
 * level's first wave does not: some of its requests may meet the SLO the steady state misses, so the
 * goodput of a queued level is not modelled (null); its SLO verdict is the steady state's.
 */
import { expectedThroughput } from "./engine.ts";
import { reasoningTokensOf, type StreamProfile } from "./stream-profile.ts";

/** Per-user needs, as in the workload's `slo`. */
export interface ExpectedSlo {
  minOutputTokensPerSecond: number;
  maxTtftMs: number;
}

/** A target's declared price, as in its config `pricing`. */
export type ExpectedPricing = { inputPerMillionUsd: number; outputPerMillionUsd: number } | { hourlyUsd: number };

export interface ExpectedLevel {
  concurrency: number;
  perStreamOutputTokensPerSecond: number;
  aggregateOutputTokensPerSecond: number;
  ttftMs: number;
  /** The first answer token after the reasoning tokens, ms. */
  ttftAnswerMs: number;
  meetsSlo: boolean;
  /** Null past the slots, where the unqueued first wave makes it depend on the request count. */
  goodputOutputTokensPerSecond: number | null;
  /** USD per million output tokens from usage.cost; null when the profile does not meter. */
  meteredUsdPerMillionOutputTokens: number | null;
  /** USD per million output tokens from the pricing; null without one. */
  declaredUsdPerMillionOutputTokens: number | null;
  /** Null when the profile reports no cached tokens. */
  cachedPromptTokenShare: number | null;
}

export interface ExpectedReaderFigures {
  levels: ExpectedLevel[];
  /** The highest level meeting the SLO (every level is valid in expectation unless the cache share rules it out). */
  capacity: number | null;
  /** Over the levels whose goodput is modelled (see `ExpectedLevel`). */
  goodputPeak: { concurrency: number; goodputOutputTokensPerSecond: number } | null;
}

/** Cost per million output tokens of requests of `promptTokens` in and `maxTokens` out at these per-million prices. */
const perMillionOutput = (
  p: { inputPerMillionUsd: number; outputPerMillionUsd: number },
  promptTokens: number,
  maxTokens: number,
) => p.outputPerMillionUsd + (p.inputPerMillionUsd * promptTokens) / maxTokens;

/** Sequences the engine runs at once for `concurrency` requests in flight (slots and KV budget), as `expectedThroughput` counts them. */
function activeSequences(profile: StreamProfile, kvPerSequence: number, concurrency: number): number {
  const kvSlots = profile.kvCacheTokens
    ? Math.max(1, Math.floor(profile.kvCacheTokens / kvPerSequence))
    : Number.POSITIVE_INFINITY;
  return Math.min(concurrency, profile.slots, kvSlots);
}

/**
 * Requests a second the profile completes with every slot (and the KV budget) full, at this prompt and
 * answer size: the rate past which an open loop's queue grows without bound. Prefill is paid per request,
 * so longer prompts lower it.
 */
export function expectedSaturationRequestsPerSecond(
  profile: StreamProfile,
  workload: { promptTokens: number; maxTokens: number },
): number {
  const t = expectedThroughput(profile, { ...workload, concurrency: profile.slots });
  return t.aggregateOutputTokensPerSecond / workload.maxTokens;
}

/**
 * The expected reader figures of a sweep over `workload.concurrency` of one reference profile. The
 * prompt size enters through prefill (`prefillBaseMs + prefillPerTokenMs x promptTokens` before the
 * first token): pass each scenario's own `promptTokens` (or the size the server counted) for its figures.
 */
export function expectedReaderFigures(
  profile: StreamProfile,
  workload: { concurrency: number[]; promptTokens: number; maxTokens: number },
  slo: ExpectedSlo,
  pricing: ExpectedPricing | null = null,
): ExpectedReaderFigures {
  const { promptTokens, maxTokens } = workload;
  const reasoning = reasoningTokensOf(profile, maxTokens);
  const cachedShare =
    profile.cachedPromptShare === undefined
      ? null
      : Math.floor(promptTokens * profile.cachedPromptShare) / promptTokens;
  const levels = workload.concurrency.map((concurrency): ExpectedLevel => {
    const t = expectedThroughput(profile, { concurrency, promptTokens, maxTokens });
    const stepMs = (t.e2eMs - t.ttftMs) / (maxTokens - 1);
    const queued = concurrency > activeSequences(profile, promptTokens + maxTokens, concurrency);
    const meetsSlo = t.perStreamOutputTokensPerSecond >= slo.minOutputTokensPerSecond && t.ttftMs <= slo.maxTtftMs;
    let declared: number | null = null;
    if (pricing && "hourlyUsd" in pricing)
      declared = (pricing.hourlyUsd / (t.aggregateOutputTokensPerSecond * 3600)) * 1e6;
    else if (pricing) declared = perMillionOutput(pricing, promptTokens, maxTokens);
    return {
      concurrency,
      perStreamOutputTokensPerSecond: t.perStreamOutputTokensPerSecond,
      aggregateOutputTokensPerSecond: t.aggregateOutputTokensPerSecond,
      ttftMs: t.ttftMs,
      ttftAnswerMs: t.ttftMs + reasoning * stepMs,
      meetsSlo,
      goodputOutputTokensPerSecond: queued ? null : meetsSlo ? t.aggregateOutputTokensPerSecond : 0,
      meteredUsdPerMillionOutputTokens: profile.meter ? perMillionOutput(profile.meter, promptTokens, maxTokens) : null,
      declaredUsdPerMillionOutputTokens: declared,
      cachedPromptTokenShare: cachedShare,
    };
  });
  // Over half the prompt cached makes every level invalid: no capacity, no goodput peak.
  const valid = (l: ExpectedLevel) => l.cachedPromptTokenShare === null || l.cachedPromptTokenShare <= 0.5;
  let capacity: number | null = null;
  let goodputPeak: ExpectedReaderFigures["goodputPeak"] = null;
  for (const l of levels) {
    if (!valid(l)) continue;
    if (l.meetsSlo) capacity = Math.max(capacity ?? 0, l.concurrency);
    const goodput = l.goodputOutputTokensPerSecond ?? 0;
    if (goodput > (goodputPeak?.goodputOutputTokensPerSecond ?? 0))
      goodputPeak = { concurrency: l.concurrency, goodputOutputTokensPerSecond: goodput };
  }
  return { levels, capacity, goodputPeak };
}
