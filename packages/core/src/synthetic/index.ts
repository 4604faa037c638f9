/**
 * @module Synthetic run documents: valid, `simulated: true` runs built from a few headline figures
 * without a server, for generated histories (tests of detection and of the site, the site benchmark).
 * Levels and the summary come from the core's own `summarizeLevel` / `summarizeRun`.
 */
import { modelKeyOf } from "../config/index.ts";
import { summarizeLevel, summarizeRun } from "../metrics/index.ts";
import { normal, seededRandom } from "../random/index.ts";
import type { PricingRecord, RunDocument, Sample } from "../run/index.ts";

export interface SyntheticRunOptions {
  targetId: string;
  /** Default `chat`. */
  scenario?: string;
  label?: string;
  model?: string;
  /** Defaults to the slug of `model`, as for a configured target. */
  modelKey?: string;
  route?: RunDocument["route"];
  /** Declared pricing: gives each level a declared cost. */
  pricing?: PricingRecord | null;
  /** Metered cost per ok request, USD (as a gateway's `usage.cost`); none leaves the run unmetered. */
  costUsdPerRequest?: number | null;
  startedAt: string;
  runId?: string;
  /** Per-stream output tok/s of one request alone. */
  singleStreamTokensPerSecond: number;
  /** TTFT of one request alone, ms. */
  ttftMs: number;
  /** Aggregate tok/s saturates near `saturationStreams` x single-stream tok/s. */
  saturationStreams: number;
  concurrency?: number[];
  /**
   * An open loop's offered rates, requests/s: its levels are these rates (Poisson arrivals, each
   * request alone, so per-stream figures are level 1's); absent: a closed loop over `concurrency`.
   */
  ratesPerSecond?: number[];
  /** Requests per level; defaults to two waves of N (at least 4). */
  requestsPerLevel?: number;
  maxTokens?: number;
  /** Fraction of requests that fail with HTTP 500 / are rate limited with 429. */
  errorRate?: number;
  rateLimitRate?: number;
  /** Provider named on ok samples; defaults to the route's pinned provider, or null. */
  servedProvider?: string | null;
  /** Relative per-request noise (standard deviation / mean). */
  noise?: number;
  random?: () => number;
  status?: "complete" | "partial";
}

/** One synthetic run document: per-stream tok/s falls with N, aggregate rises toward saturation. */
export function syntheticRun(options: SyntheticRunOptions): RunDocument {
  const random = options.random ?? seededRandom(1);
  const rates = options.ratesPerSecond;
  // An open loop's levels are numbered 1, 2, ...; each of its requests runs alone.
  const concurrency = rates ? rates.map((_, i) => i + 1) : (options.concurrency ?? [1, 2, 4, 8, 16, 32]);
  const maxTokens = options.maxTokens ?? 128;
  const noise = options.noise ?? 0.03;
  const route = options.route ?? { gateway: "direct" as const };
  const served = options.servedProvider === undefined ? (route.provider ?? null) : options.servedProvider;
  const jitter = () => Math.max(0.2, 1 + noise * normal(random));

  const allSamples: Sample[] = [];
  const levels = concurrency.map((ladder, i) => {
    const number = i + 1;
    const offered = rates?.[i];
    const n = offered === undefined ? ladder : 1;
    // Per-stream speed holds (slightly falling) up to saturation, then the aggregate is flat.
    const slowdown = Math.max(1 + (0.3 * (n - 1)) / options.saturationStreams, n / options.saturationStreams);
    const requestsPerLevel = options.requestsPerLevel ?? (offered === undefined ? Math.max(4, 2 * n) : 24);
    const samples: Sample[] = [];
    let clock = 0;
    let waveEnd = 0;
    for (let i = 0; i < requestsPerLevel; i++) {
      if (offered !== undefined) clock = (i * 1000) / offered;
      else if (i % n === 0) clock = waveEnd;
      const roll = random();
      const failed = roll < (options.errorRate ?? 0);
      const limited = !failed && roll < (options.errorRate ?? 0) + (options.rateLimitRate ?? 0);
      const ttft = options.ttftMs * (1 + (0.2 * (n - 1)) / options.saturationStreams) * jitter();
      const rate = (options.singleStreamTokensPerSecond / slowdown) * jitter();
      const e2e = ttft + ((maxTokens - 1) / rate) * 1000;
      waveEnd = Math.max(waveEnd, clock + (failed || limited ? 50 : e2e));
      samples.push(
        failed || limited
          ? failedSample(number, i, clock, limited)
          : okSample({
              level: number,
              index: i,
              startMs: clock,
              ttftMs: ttft,
              e2eMs: e2e,
              decodeTokensPerSecond: rate,
              maxTokens,
              costUsd: options.costUsdPerRequest ?? null,
              responseId: `syn-${ladder}-${i}`,
              servedProvider: served,
            }),
      );
    }
    allSamples.push(...samples);
    return summarizeLevel({
      level: number,
      load:
        offered === undefined
          ? { kind: "closed", concurrency: n }
          : { kind: "open", arrival: "poisson", ratePerSecond: offered },
      samples,
      wallTimeMs: waveEnd,
      achievedConcurrency: n,
      eventLoopLagP99Ms: 1,
      pricing: options.pricing ?? null,
      ...(offered !== undefined
        ? {
            schedule: {
              achievedRatePerSecond: offered,
              inFlightMean: 1,
              inFlightMax: 1,
              scheduleLagsMs: [0.1, 0.2],
              maxInFlight: 256,
              maxInFlightHit: false,
            },
          }
        : {}),
    });
  });

  const startMs = Date.parse(options.startedAt);
  const wall = levels.reduce((sum, l) => sum + l.wallTimeMs, 0);
  return {
    schemaVersion: 4,
    runId: options.runId ?? `syn${startMs.toString(36)}`,
    targetId: options.targetId,
    scenario: options.scenario ?? "chat",
    label: options.label ?? `${options.targetId} (simulated)`,
    model: options.model ?? options.targetId,
    modelKey: options.modelKey ?? modelKeyOf({ model: options.model ?? options.targetId }),
    pricing: options.pricing ?? null,
    baseURL: "http://127.0.0.1/v1",
    route,
    startedAt: new Date(startMs).toISOString(),
    finishedAt: new Date(startMs + wall).toISOString(),
    status: options.status ?? "complete",
    partialReason: options.status === "partial" ? "deadline" : null,
    simulated: true,
    harness: { version: "synthetic", node: process.version, host: "synthetic", region: null },
    workload: {
      concurrency: rates ? [1] : concurrency,
      ...(rates ? { arrival: { mode: "poisson", ratesPerSecond: rates, seed: 1, maxInFlight: 256 } } : {}),
      requestsPerLevel: options.requestsPerLevel ?? (rates ? 24 : "2N"),
      maxTokens,
      promptTokens: 150,
    },
    trace: null,
    levels,
    summary: summarizeRun(levels),
    samples: allSamples,
    toolCalls: null,
  };
}

/** An ok sample of `maxTokens` tokens at these times and rates, as a measured one would read (150 prompt tokens, stopped at its length). */
function okSample(at: {
  level: number;
  index: number;
  startMs: number;
  ttftMs: number;
  e2eMs: number;
  decodeTokensPerSecond: number;
  maxTokens: number;
  costUsd: number | null;
  responseId: string;
  servedProvider: string | null;
}): Sample {
  const { ttftMs: ttft, e2eMs: e2e, maxTokens } = at;
  return {
    level: at.level,
    index: at.index,
    turn: null,
    outcome: "ok",
    startMs: at.startMs,
    ttftMs: ttft,
    ttftAnswerMs: ttft,
    reasoningTokens: null,
    cachedPromptTokens: null,
    costUsd: at.costUsd,
    e2eMs: e2e,
    completionTokens: maxTokens,
    tokenSource: "usage",
    promptTokens: 150,
    outputTokensPerSecond: maxTokens / (e2e / 1000),
    prefillTokensPerSecond: 150 / (ttft / 1000),
    decodeTokensPerSecond: at.decodeTokensPerSecond,
    tpotMs: (e2e - ttft) / (maxTokens - 1),
    chunks: maxTokens,
    scheduledMs: null,
    reusablePromptTokens: null,
    responseId: at.responseId,
    servedProvider: at.servedProvider,
    httpStatus: 200,
    retryAfterSeconds: null,
    finishReason: "length",
    error: null,
    connection: null,
    sends: null,
    staleSockets: null,
    staleSocketMs: null,
    connectMs: null,
    tlsMs: null,
  };
}

function failedSample(level: number, index: number, startMs: number, rateLimited: boolean): Sample {
  return {
    level,
    index,
    turn: null,
    outcome: rateLimited ? "rate_limited" : "http_error",
    startMs,
    ttftMs: null,
    ttftAnswerMs: null,
    reasoningTokens: null,
    cachedPromptTokens: null,
    costUsd: null,
    e2eMs: null,
    completionTokens: null,
    tokenSource: null,
    promptTokens: null,
    outputTokensPerSecond: null,
    prefillTokensPerSecond: null,
    decodeTokensPerSecond: null,
    tpotMs: null,
    chunks: 0,
    scheduledMs: null,
    reusablePromptTokens: null,
    responseId: null,
    servedProvider: null,
    httpStatus: rateLimited ? 429 : 500,
    retryAfterSeconds: rateLimited ? 1 : null,
    finishReason: null,
    error: rateLimited ? "rate limited" : "HTTP 500",
    connection: null,
    sends: null,
    staleSockets: null,
    staleSocketMs: null,
    connectMs: null,
    tlsMs: null,
  };
}

export { type SyntheticToolCallsOptions, syntheticToolCalls, wilsonShare } from "./tool-calls.ts";
