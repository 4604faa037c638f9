/** @module The chat request of one index of a level, built alike on the main thread and in worker threads. */
import type { FirstTokenWatch } from "../client/health.ts";
import type { ChatMessage, ChatRequest, RawResult } from "../client/index.ts";
import type { Workload } from "../config/index.ts";
import type { Turn } from "../drive/session.ts";
import { heldConversation } from "../kinds/index.ts";
import { type ReplayPlace, replayPrompt, type TraceRequest } from "../trace/index.ts";
import { promptFor, questionFor, systemPromptFor } from "../workload/index.ts";

/** The workload fields a request is built from. */
export type RequestWorkload = Pick<
  Workload,
  | "promptTokens"
  | "maxTokens"
  | "temperature"
  | "ignoreEos"
  | "requestTimeoutSeconds"
  | "streamIdleTimeoutSeconds"
  | "conversation"
>;

/** What sends one request: the streaming client, or a test's stand-in. */
export interface RequestSender {
  send(request: ChatRequest): Promise<RawResult>;
}

/** Where a request belongs: its run and level (its prompt is unique to them and to its index). */
export interface RequestPlace {
  runId: string;
  /** The level's number in its sweep, 1-based (its run document's `levels[].level`). */
  level: number;
  /** The users the level holds at once, its N, where its kind has one (a closed loop, conversations); null for the others. */
  users: number | null;
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

/**
 * What a level's prompts are tagged with, unique per level of a run: its N where its kind has one,
 * else its number (as prompts have always been tagged, so a level's prompts read as they did).
 */
function promptTag(place: RequestPlace): number {
  return place.users ?? place.level;
}

/**
 * The request of index `index`. In a conversation it is `turn` (a warm-up request, or one sent
 * without a turn: turn 1 of a conversation of its own): the run's system prompt, the earlier
 * questions (rebuilt as first sent) each followed by the answer received, and the turn's question.
 */
export function chatRequest(
  place: RequestPlace,
  index: number,
  warmup: boolean,
  signal: AbortSignal,
  firstToken?: FirstTokenWatch,
  turn?: Turn,
): ChatRequest {
  const { workload } = place;
  const replayed = warmup ? undefined : place.replay?.requests[index];
  const common = {
    maxTokens: replayed ? replayed.outputTokens : workload.maxTokens,
    temperature: workload.temperature,
    ignoreEos: workload.ignoreEos,
    timeoutMs: workload.requestTimeoutSeconds * 1000,
    idleTimeoutMs: workload.streamIdleTimeoutSeconds * 1000,
    signal,
    firstToken,
  };
  const conversation = heldConversation(workload);
  const tag = promptTag(place);
  if (!conversation)
    return {
      prompt:
        replayed && place.replay
          ? replayPrompt(replayed, index, place.replay.place)
          : promptFor({
              runId: place.runId,
              level: tag,
              index,
              warmup,
              promptTokens: workload.promptTokens,
              charsPerToken: place.charsPerToken,
            }),
      ...common,
    };
  const { conversation: number, turn: at, answers } = turn ?? { conversation: index, turn: 1, answers: [] };
  const question = (t: number) =>
    questionFor({
      runId: place.runId,
      level: tag,
      conversation: number,
      turn: t,
      warmup,
      promptTokens: conversation.turnPromptTokens ?? workload.promptTokens,
      charsPerToken: place.charsPerToken,
    });
  const history: ChatMessage[] = answers.flatMap((answer, i) => [
    { role: "user" as const, content: question(i + 1) },
    { role: "assistant" as const, content: answer },
  ]);
  return {
    system: systemPromptFor({
      runId: place.runId,
      tokens: conversation.sharedPrefixTokens,
      charsPerToken: place.charsPerToken,
    }),
    history,
    prompt: question(at),
    keepAnswer: true,
    ...common,
  };
}

/** Characters of a request's prompt: its system message, history and question. */
export function requestChars(request: ChatRequest): number {
  return (
    (request.system?.length ?? 0) +
    (request.history ?? []).reduce((sum, m) => sum + m.content.length, 0) +
    request.prompt.length
  );
}
