/**
 * @module The reference server's own log: what it received and what it sent, kept for the tests that
 * hold a client's figures to it.
 */
import type { PlannedCall, ToolBreakage } from "./tools.ts";

/**
 * When the server itself handled one streamed response: the truth a client's TTFT and per-stream
 * figures are checked against. Times are epoch ms taken as `performance.timeOrigin + performance.now()`
 * (sub-ms, and comparable with the same reading in another process on the same machine).
 */
export interface ResponseTiming {
  responseId: string;
  /** The request's headers arrived. */
  arrivedAtMs: number;
  /** The first token's chunk was written to the socket; null when none was. */
  firstTokenAtMs: number | null;
  /** The last token's chunk was written; null until the stream finished. */
  lastTokenAtMs: number | null;
  /** Tokens written. */
  tokens: number;
  /** The request's `max_tokens`, and its prompt tokens as the model counted them. */
  maxTokens: number;
  promptTokens: number;
  /** Prompt tokens its prefix cache served (`cached_tokens`); null without `prefixCache`. */
  cachedTokens: number | null;
  /** The prompt's text (its messages' contents joined), with `recordPrompts`; null otherwise. */
  prompt: string | null;
}

/** Records beyond this many are dropped (the oldest stay) until taken: a bound for long-running servers. */
export const MAX_TIMINGS = 200_000;

export const epochMs = () => performance.timeOrigin + performance.now();

/**
 * One answer to a tool request, as the server sent it (the deltas it wrote, assembled): the truth a
 * client's tool-call shares are checked against.
 */
export interface ToolAnswerRecord {
  model: string;
  /** The suite prompt the messages matched; null for a request in no suite. */
  promptId: string | null;
  /** The breakages the profile applied to this answer. */
  breakages: ToolBreakage[];
  calls: PlannedCall[];
  content: string | null;
  /** The finish reason sent; null when the client went away first. */
  finishReason: string | null;
  /** Arguments went out as JSON objects, not strings (`argumentsAsObject`). */
  argumentsAsObject: boolean;
  /** Events written in two pieces cut inside a multi-byte character (`splitMultibyte`). */
  splitEvents: number;
}

/** One chat request as the server received it (with `recordPrompts`). */
export interface ReceivedRequest {
  model: string;
  messages: { role: string; content: string }[];
  /** Prompt tokens as the model counted them; null when the request was not served (refused, unknown model). */
  promptTokens: number | null;
  /** Prompt tokens its prefix cache served; null without one or when not served. */
  cachedTokens: number | null;
}

/** What the server logs as it answers: the streamed responses' timings and the tool answers. */
export interface AnswerLog {
  timings: ResponseTiming[];
  toolAnswers: ToolAnswerRecord[];
}

/**
 * The chat requests as they arrived (with `recordPrompts`; empty otherwise): how many times each
 * prompt (its messages' contents) arrived, and each request's messages in arrival order.
 */
export function receivedLog(enabled: boolean) {
  const prompts = new Map<string, number>();
  const requests: ReceivedRequest[] = [];
  /** Records a chat request's body, parsed or not; returns its record, for the counts once it is served. */
  const record = (body: unknown): ReceivedRequest | undefined => {
    if (!enabled) return;
    let parsed = body;
    if (typeof body === "string")
      try {
        parsed = JSON.parse(body);
      } catch {
        return;
      }
    const messages = (parsed as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(messages)) return;
    const prompt = messages.map((m) => String((m as { content?: unknown }).content ?? "")).join("\n");
    prompts.set(prompt, (prompts.get(prompt) ?? 0) + 1);
    const received: ReceivedRequest = {
      model: String((parsed as { model?: unknown }).model ?? ""),
      messages: messages.map((m) => ({
        role: String((m as { role?: unknown }).role ?? ""),
        content: String((m as { content?: unknown }).content ?? ""),
      })),
      promptTokens: null,
      cachedTokens: null,
    };
    if (requests.length < MAX_TIMINGS) requests.push(received);
    return received;
  };
  return { prompts, requests, record };
}
