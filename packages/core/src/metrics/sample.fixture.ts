/** @module Samples for the metrics tests: an ok one with overrides, a failed one, and a calm level's defaults. */
import type { Sample } from "../run/index.ts";
import { type LevelInput, summarizeLevel } from "./level.ts";

/** An ok sample: 100 tokens in 1 s, TTFT 100 ms; `over` replaces any field. */
export function sample(over: Partial<Sample> = {}): Sample {
  return {
    level: 1,
    index: 0,
    turn: null,
    outcome: "ok",
    startMs: 0,
    ttftMs: 100,
    ttftAnswerMs: 100,
    reasoningTokens: null,
    cachedPromptTokens: null,
    costUsd: null,
    e2eMs: 1000,
    completionTokens: 100,
    tokenSource: "usage",
    promptTokens: 50,
    outputTokensPerSecond: 100,
    prefillTokensPerSecond: 500,
    decodeTokensPerSecond: 110,
    tpotMs: 9,
    interChunkMs: [10, 20],
    chunks: 3,
    scheduledMs: null,
    reusablePromptTokens: null,
    responseId: "r",
    servedProvider: "p",
    httpStatus: 200,
    retryAfterSeconds: null,
    finishReason: "stop",
    error: null,
    connection: "new",
    sends: 1,
    staleSockets: 0,
    staleSocketMs: null,
    connectMs: null,
    tlsMs: null,
    ...over,
  };
}

/** A sample that failed with `outcome`: no timing, no tokens. */
export function failed(outcome: Sample["outcome"]): Sample {
  return sample({
    outcome,
    ttftMs: null,
    ttftAnswerMs: null,
    e2eMs: null,
    completionTokens: null,
    tokenSource: null,
    outputTokensPerSecond: null,
    decodeTokensPerSecond: null,
    tpotMs: null,
    interChunkMs: [],
    chunks: 0,
    scheduledMs: null,
    reusablePromptTokens: null,
  });
}

/** The wall time (1 s) and event loop lag (1 ms) of a calm level, for `summarizeLevel` inputs. */
export const levelDefaults = { wallTimeMs: 1000, eventLoopLagP99Ms: 1 };

/** A calm level at N=1 of these samples (1 s, concurrency 1); `over` replaces any input. */
export function calmLevel(samples: Sample[], over: Partial<LevelInput> = {}) {
  return summarizeLevel({
    load: { kind: "closed", concurrency: 1 },
    samples,
    wallTimeMs: 1000,
    achievedConcurrency: 1,
    eventLoopLagP99Ms: 1,
    ...over,
  });
}
