/** @module A raw client result as a sample of the run document, with the per-request figures of docs/methodology.md. */
import type { RawResult } from "../client/index.ts";
import { deriveSampleFigures } from "../metrics/index.ts";
import type { Sample } from "../run/index.ts";

/** What a sample records beyond the client's result: its conversation turn, its schedule (open loop, trace replay), its reusable tokens. */
export interface SampleExtras {
  /** A conversation's turn, 1-based; absent outside conversations. */
  turn?: number;
  /** When the send was due, ms from the level's start; null for a closed loop. */
  scheduledMs?: number | null;
  /** A trace replay's reusable prompt tokens (its leading hash_ids blocks already sent); null otherwise. */
  reusablePromptTokens?: number | null;
}

/** Turns a raw client result into a sample with the per-request figures of docs/methodology.md. */
export function toSample(
  raw: RawResult,
  level: number,
  index: number,
  origin: number,
  extras: SampleExtras = {},
): Sample {
  const fromUsage = raw.completionTokens !== null;
  const completionTokens = fromUsage
    ? raw.completionTokens
    : raw.contentChunks.length > 0
      ? raw.contentChunks.length
      : null;
  const figures = deriveSampleFigures({
    startMs: raw.startMs,
    contentChunks: raw.contentChunks,
    completionTokens,
    firstAnswerMs: raw.firstAnswerMs,
  });
  return {
    level,
    index,
    turn: extras.turn ?? null,
    outcome: raw.outcome,
    startMs: raw.startMs - origin,
    ttftMs: figures.ttftMs,
    ttftAnswerMs: figures.ttftAnswerMs,
    reasoningTokens: raw.reasoningTokens,
    cachedPromptTokens: raw.cachedPromptTokens,
    costUsd: raw.costUsd,
    e2eMs: figures.e2eMs,
    completionTokens,
    tokenSource: completionTokens === null ? null : fromUsage ? "usage" : "chunks",
    promptTokens: raw.promptTokens,
    outputTokensPerSecond: figures.outputTokensPerSecond,
    prefillTokensPerSecond:
      raw.promptTokens !== null && figures.ttftMs !== null && figures.ttftMs > 0
        ? raw.promptTokens / (figures.ttftMs / 1000)
        : null,
    decodeTokensPerSecond: figures.decodeTokensPerSecond,
    tpotMs: figures.tpotMs,
    interChunkMs: figures.interChunkMs,
    chunks: raw.contentChunks.length,
    scheduledMs: extras.scheduledMs ?? null,
    reusablePromptTokens: extras.reusablePromptTokens ?? null,
    responseId: raw.responseId,
    servedProvider: raw.servedProvider,
    httpStatus: raw.httpStatus,
    retryAfterSeconds: raw.retryAfterSeconds,
    finishReason: raw.finishReason,
    error: raw.error,
    connection: raw.connection,
    sends: raw.sends,
    staleSockets: raw.staleSockets,
    staleSocketMs: raw.staleSocketMs,
    connectMs: raw.connectMs,
    tlsMs: raw.tlsMs,
  };
}
