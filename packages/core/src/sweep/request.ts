/** @module The chat request of one index of a level, built alike on the main thread and in worker threads. */
import type { FirstTokenWatch } from "../client/health.ts";
import type { ChatRequest, RawResult } from "../client/index.ts";
import type { Workload } from "../config/index.ts";
import { type ReplayPlace, replayPrompt, type TraceRequest } from "../trace/index.ts";
import { promptFor } from "../workload/index.ts";

/** The workload fields a request is built from. */
export type RequestWorkload = Pick<
  Workload,
  "promptTokens" | "maxTokens" | "temperature" | "ignoreEos" | "requestTimeoutSeconds" | "streamIdleTimeoutSeconds"
>;

/** What sends one request: the streaming client, or a test's stand-in. */
export interface RequestSender {
  send(request: ChatRequest): Promise<RawResult>;
}

/** Where a request belongs: its run and level (its prompt is unique to them and to its index). */
export interface RequestPlace {
  runId: string;
  concurrency: number;
  workload: RequestWorkload;
  /** Characters per prompt token the prompts are sized with (`PromptSizer`); default `CHARS_PER_TOKEN`. */
  charsPerToken?: number;
  /**
   * A trace replay's measured requests: request k is the window's k-th, its prompt built from its
   * `hash_ids` blocks (`replayPrompt`) and its `max_tokens` its output length. Warm-up requests are
   * the workload's own.
   */
  replay?: { requests: readonly TraceRequest[]; place: ReplayPlace };
}

export function chatRequest(
  place: RequestPlace,
  index: number,
  warmup: boolean,
  signal: AbortSignal,
  firstToken?: FirstTokenWatch,
): ChatRequest {
  const { workload } = place;
  const replayed = warmup ? undefined : place.replay?.requests[index];
  return {
    prompt:
      replayed && place.replay
        ? replayPrompt(replayed, index, place.replay.place)
        : promptFor({
            runId: place.runId,
            level: place.concurrency,
            index,
            warmup,
            promptTokens: workload.promptTokens,
            charsPerToken: place.charsPerToken,
          }),
    maxTokens: replayed ? replayed.outputTokens : workload.maxTokens,
    temperature: workload.temperature,
    ignoreEos: workload.ignoreEos,
    timeoutMs: workload.requestTimeoutSeconds * 1000,
    idleTimeoutMs: workload.streamIdleTimeoutSeconds * 1000,
    signal,
    firstToken,
  };
}
