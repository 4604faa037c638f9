/**
 * @module The batch decoder (./batch-decoder.ts) as an in-memory endpoint: a sweep's `client` stand-in
 * that answers each request from the decoder on the same scheduler, so a searched sweep runs in a
 * manual scheduler's exact time. A broken stream comes back as the real client reports it over HTTP
 * (a cut connection, an SSE error event), and nothing is read before the decoder's token times.
 */
import type { ChatRequest, RawResult } from "@kneeboard/core/client";
import { onAbort, type Scheduler } from "@kneeboard/core/scheduler";
import { BatchDecoder, type BatchProfile } from "./batch-decoder.ts";

/** What the batch server's error event says, and so what the client reports for it. */
export const DECODER_ERROR_MESSAGE = "the batch decoder failed mid-stream";

/** The errors the real client reports for the decoder's two faults over HTTP (test/search-capacity-http.test.ts checks them). */
export const FAULT_ERRORS = {
  close: "stream broken: aborted",
  error: `stream error: ${DECODER_ERROR_MESSAGE}`,
} as const;

/** Characters of each token's content (" tok"), and prompt characters a token, as the batch server counts them. */
export const CHARS_PER_TOKEN = 4;

/** A result with nothing read yet, on a reused connection. */
function resultAt(startMs: number): RawResult {
  return {
    outcome: "incomplete",
    startMs,
    contentChunks: [],
    firstAnswerMs: null,
    completionTokens: null,
    promptTokens: null,
    reasoningTokens: null,
    cachedPromptTokens: null,
    costUsd: null,
    finishReason: null,
    responseId: null,
    servedProvider: null,
    httpStatus: 200,
    retryAfterSeconds: null,
    error: null,
    connection: "reused",
    sends: 1,
    simulated: true,
    staleSockets: 0,
    staleSocketMs: null,
    connectMs: null,
    tlsMs: null,
  };
}

/** The decoder as a sweep's request sender, on `scheduler` (a manual one in tests). */
export function batchEndpoint(profile: BatchProfile, scheduler: Scheduler) {
  const decoder = new BatchDecoder(profile, scheduler);
  let id = 0;
  return {
    decoder,
    send(request: ChatRequest): Promise<RawResult> {
      const result = resultAt(scheduler.now());
      result.responseId = `batch-${++id}`;
      return new Promise((resolve) => {
        let off = () => {};
        const cancel = decoder.submit(request.maxTokens, {
          token(_index, atMs) {
            result.contentChunks.push({ tMs: atMs, chars: CHARS_PER_TOKEN });
            result.firstAnswerMs ??= atMs;
          },
          end(how, _atMs, tokens) {
            off();
            if (how === "done") {
              result.outcome = "ok";
              result.finishReason = tokens < request.maxTokens ? "stop" : "length";
              result.completionTokens = tokens;
              result.promptTokens = Math.ceil(request.prompt.length / CHARS_PER_TOKEN);
            } else result.error = FAULT_ERRORS[how];
            resolve(result);
          },
        });
        const signal = request.signal;
        if (!signal) return;
        const abort = () => {
          cancel();
          result.outcome = "network";
          result.error = "aborted";
          resolve(result);
        };
        if (signal.aborted) return abort();
        // One listener on the level's shared signal, however many requests wait on it.
        off = onAbort(signal, abort);
      });
    },
  };
}
