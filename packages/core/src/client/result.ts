/**
 * @module What one request produced: the record the client fills and its parts (the chunk reader, the
 * transport) write into. Its own module so those parts need not import the client that uses them.
 */
import { z } from "zod";
import type { AssembledCall } from "./tool-call-deltas.ts";

/** Why a request ended the way it did (docs/methodology.md). */
export const Outcome = z.enum([
  "ok",
  "rate_limited",
  "route_mismatch",
  "http_error",
  "timeout",
  "network",
  "incomplete",
]);
export type Outcome = z.infer<typeof Outcome>;

/** What one request produced, before the per-sample figures are derived. Times are clock ms. */
export interface RawResult {
  outcome: Outcome;
  startMs: number;
  /** Arrival time and character count of every chunk with non-empty content or reasoning. */
  contentChunks: { tMs: number; chars: number }[];
  /**
   * The generated text, reasoning and answer content in the order they came; only when the request
   * asked to keep it (`ChatRequest.keepText`), else absent.
   */
  text?: string;
  /** Arrival time of the first chunk with non-empty answer `content` (reasoning does not count); null when none came. */
  firstAnswerMs: number | null;
  completionTokens: number | null;
  promptTokens: number | null;
  /** `usage.completion_tokens_details.reasoning_tokens`; null when not reported. */
  reasoningTokens: number | null;
  /**
   * Prompt tokens the endpoint served from its prompt cache, as its usage reports them
   * (`prompt_tokens_details.cached_tokens`, Anthropic-style `cache_read_input_tokens`, DeepSeek's
   * `prompt_cache_hit_tokens`); null when not reported.
   */
  cachedPromptTokens: number | null;
  /** The answer's text (content, not reasoning), kept only when the request asked (`ChatRequest.keepAnswer`). */
  answerText?: string;
  /**
   * The answer's tool calls as assembled from its deltas by `index` (`applyToolCallDeltas`); only when
   * the request offered tools or a response schema, else absent.
   */
  toolCalls?: AssembledCall[];
  /** Some delta sent a call's `arguments` as a JSON object, not a string (stringified in `toolCalls`). */
  argumentsAsObject?: boolean;
  /** `usage.cost` in USD where the gateway meters it (OpenRouter); null when not reported. */
  costUsd: number | null;
  finishReason: string | null;
  responseId: string | null;
  servedProvider: string | null;
  httpStatus: number | null;
  retryAfterSeconds: number | null;
  error: string | null;
  /**
   * The connection that carried the request (after a re-send, the re-send's): `new` when opened for
   * it, `reused` when kept alive from an earlier request; null when no socket was assigned.
   */
  connection: "new" | "reused" | null;
  /**
   * Times the request's bytes were written to a socket: 1 once sent, 0 when it never left (Node
   * refused it). Never 2: a written request is not sent again (docs/methodology.md, connections).
   */
  sends: number;
  /**
   * The response announced a simulated server (the `x-kneeboard-simulated` header of kneeboard's
   * reference server): the run is then `simulated`. Absent: false.
   */
  simulated?: boolean;
  /** Reused sockets found closed by the server before a byte of the request was written on them (0 or 1: it then went on a new connection). */
  staleSockets: number;
  /** Clock ms from the send to the re-send on a new connection: what the stale socket cost, inside TTFT; null when none. */
  staleSocketMs: number | null;
  /** Clock ms from the send (or re-send) to the TCP connection up, DNS lookup included; null when reused. */
  connectMs: number | null;
  /** Clock ms from the TCP connection to the TLS handshake done; null when reused or not TLS. */
  tlsMs: number | null;
}
