/**
 * @module Conversations (docs/config.md#conversation): each of N workers is one user holding
 * conversations of `turns` turns; each turn re-sends the run's system prompt and the conversation so
 * far, then a new question. Its config member, levels, run-document load, words and driver.
 */
import { z } from "zod";
import type { LoadKind } from "../../drive/kind.ts";
import { closedLevelTiming } from "../../drive/plan.ts";
import { type LevelSearch, ladderOf } from "../../drive/search.ts";
import { number } from "../../drive/words.ts";
import { USERS, USERS_PLAN, type WorkersSpec, workersDriver } from "../../drive/workers.ts";
import { ConversationFigures, type ConversationParts, conversationFiguresOf } from "./figures.ts";
import { type CONVERSATION_INDEX, type CONVERSATION_STANDING, conversationIndex } from "./index-figures.ts";
import { type ConversationSpec, conversations } from "./session.ts";

export { CacheVerdict, ConversationFigures, ConversationTurns, TurnFigures } from "./figures.ts";

/**
 * Conversations (docs/config.md#conversation): each closed-loop worker is one user holding
 * conversations of `turns` turns; each turn re-sends the run's system prompt and the conversation so
 * far (the questions and the answers received), then a new question.
 */
export const Conversation = z.strictObject({
  /** Turns of each conversation, at least 1. */
  turns: z
    .number({ error: "must be a whole number of turns, at least 1" })
    .int("must be a whole number of turns, at least 1")
    .min(1, "must be at least 1: a conversation has at least one turn")
    .max(64)
    .meta({ description: "Turns of each conversation, a whole number from 1 to 64. Required." }),
  /** Tokens of the system prompt every conversation of the run begins with (0: none). */
  sharedPrefixTokens: z.number().int().nonnegative().meta({
    description:
      "Tokens of the system prompt every conversation of the run begins with, a whole number, 0 or more (0: no system message). Required.",
  }),
  /** Tokens of each turn's new question (default: the workload's `promptTokens`). */
  turnPromptTokens: z.number().int().positive().optional().meta({
    description: "Tokens of each turn's new question, a positive whole number. Default: the workload's promptTokens.",
  }),
  /** Seconds between a turn's answer and the next question, as a reader takes (default 0). */
  thinkSeconds: z
    .number({ error: "must be a number of seconds, 0 or more" })
    .nonnegative("must not be negative: a think time is 0 seconds or more")
    .max(3600)
    .default(0)
    .meta({
      description:
        "Wait between a turn's answer and the next question, as a reader takes (a prompt cache may expire in it), seconds, 0 to 3600. Default 0.",
    }),
});
export type Conversation = z.infer<typeof Conversation>;

/** A conversation level's load as the sweep drives it: N users, each holding conversations of `turns` turns. */
export interface ConversationLevelLoad {
  kind: "conversation";
  concurrency: number;
  turns: number;
  thinkSeconds: number;
}

/** The run document's conversation load: N users in conversation, each conversation `turns` turns. */
export const ConversationLoad = z.object({
  kind: z.literal("conversation"),
  /** N, the users (each one request in flight, or thinking) held at once. */
  concurrency: z.number().int().positive(),
  /** Turns of each conversation. */
  turns: z.number().int().positive(),
});
export type ConversationLoad = z.infer<typeof ConversationLoad>;

/**
 * The conversation load of a level stored before conversations were a kind (a run document v2's, or
 * a run index entry's recorded then), which named it a closed load and carried the conversation in
 * its figures by turn (`conversation.turns`, an index entry's `conversation.byTurn`); null for any other level.
 */
export function conversationLoadOfV2(level: { load?: unknown; conversation?: unknown }): ConversationLoad | null {
  const { load, conversation } = level as { load?: { kind?: unknown; concurrency?: unknown }; conversation?: unknown };
  const talk = conversation as { turns?: unknown; byTurn?: unknown } | null | undefined;
  const turns = talk?.turns ?? (Array.isArray(talk?.byTurn) ? talk.byTurn.length : undefined);
  if (load?.kind !== "closed" || typeof load.concurrency !== "number" || typeof turns !== "number") return null;
  return { kind: "conversation", concurrency: load.concurrency, turns };
}

/** A conversation's tokens turn by turn, as the plan expects them: every answer `maxTokens` long. */
export interface ConversationPlan {
  turns: number;
  thinkSeconds: number;
  /** Tokens of the system prompt every conversation begins with. */
  sharedPrefixTokens: number;
  /** Tokens of each turn's new question. */
  turnPromptTokens: number;
  /** Prompt tokens of each turn: the system prompt, the earlier questions and answers, the new question. */
  promptTokensByTurn: number[];
  /** Prompt tokens over one conversation's turns. */
  promptTokens: number;
  /** Output tokens over one conversation (`maxTokens` a turn). */
  outputTokens: number;
  /**
   * Of `promptTokens`, the most a prefix cache can serve: every turn's system prompt and history up to
   * the last answer (the last answer and the new question are prefilled; turn 1's system prompt is
   * another conversation's).
   */
  cacheablePromptTokens: number;
}

/** The tokens of a workload's conversations (null without one). */
export function conversationPlan(workload: {
  conversation?: Conversation;
  promptTokens: number;
  maxTokens: number;
}): ConversationPlan | null {
  const talk = workload.conversation;
  if (!talk) return null;
  const question = talk.turnPromptTokens ?? workload.promptTokens;
  const answer = workload.maxTokens;
  const turns = Array.from({ length: talk.turns }, (_, i) => i + 1);
  const promptTokensByTurn = turns.map((t) => talk.sharedPrefixTokens + t * question + (t - 1) * answer);
  const cacheable = turns.map((t) =>
    t === 1 ? talk.sharedPrefixTokens : talk.sharedPrefixTokens + (t - 1) * question + (t - 2) * answer,
  );
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    turns: talk.turns,
    thinkSeconds: talk.thinkSeconds,
    sharedPrefixTokens: talk.sharedPrefixTokens,
    turnPromptTokens: question,
    promptTokensByTurn,
    promptTokens: sum(promptTokensByTurn),
    outputTokens: talk.turns * answer,
    cacheablePromptTokens: sum(cacheable),
  };
}

const workers = workersDriver(
  "conversation",
  (load: ConversationLevelLoad) => ({
    conversation: { turns: load.turns, thinkMs: load.thinkSeconds * 1000, thinkSeconds: load.thinkSeconds },
  }),
  (spec) => conversations(spec.conversation),
);

/** N workers each holding conversations: the workers' driver, whose level is described with its sessions (figures by turn). */
const conversationDriver: typeof workers = {
  ...workers,
  describe: (spec, record, window) => ({
    ...workers.describe(spec, record, window),
    sessions: { turns: spec.conversation.turns, thinkSeconds: spec.conversation.thinkSeconds },
  }),
};

export const conversation: LoadKind<
  { concurrency: number[] | LevelSearch; conversation: Conversation },
  ConversationLevelLoad,
  ConversationLoad,
  WorkersSpec<"conversation"> & { conversation: ConversationSpec },
  ConversationFigures,
  ConversationParts,
  typeof CONVERSATION_INDEX,
  typeof CONVERSATION_STANDING
> = {
  kind: "conversation",
  document: ConversationLoad,
  figures: { schema: ConversationFigures, of: conversationFiguresOf },
  index: conversationIndex,
  axis: "concurrency",
  levels: (workload, { requestSeconds }) => {
    const talk = workload.conversation;
    // A worker thinks after every turn but the last: each measured request takes that share of it more.
    const pauseSeconds = (talk.thinkSeconds * (talk.turns - 1)) / talk.turns;
    return ladderOf(workload.concurrency).map((concurrency, i) => ({
      load: { kind: "conversation", concurrency, turns: talk.turns, thinkSeconds: talk.thinkSeconds },
      name: `concurrency ${concurrency} (${concurrency} in conversation)`,
      level: i + 1,
      ...closedLevelTiming(concurrency, workload, requestSeconds, pauseSeconds),
    }));
  },
  record: (load) => ({ kind: "conversation", concurrency: load.concurrency, turns: load.turns }),
  ...USERS,
  words: (load) => `N=${load.concurrency}, ${load.turns}-turn conversations`,
  same: (a, b) => a.turns === b.turns,
  // Each user waits for the answer before the next turn: only a closed loop's workers can be its users.
  searchProblems: () => [],
  arrivalProblems: ({ conversation, arrivalKind, mode }) =>
    conversation && arrivalKind !== "closed"
      ? [
          {
            at: conversation,
            message: `conversations run in a closed loop (each user waits for the answer before the next turn), not with ${String(mode)} arrivals`,
          },
        ]
      : [],
  // A conversation re-sends its history: a cache serving it is what the level measures.
  expectsCache: true,
  // Its TTFT and cached share by turn, and its cache verdict, one line a level.
  reportLines: (figures, words) => {
    const turns = figures.byTurn
      .map(
        (t) =>
          `${t.turn}: ${t.ttftMs.p50 === null ? "-" : t.ttftMs.p50.toFixed(1)} ms${t.cachedPromptTokenShare === null ? "" : ` (${Math.round(t.cachedPromptTokenShare * 100)} % cached)`}`,
      )
      .join(", ");
    return [`${words} by turn, TTFT p50: ${turns}; ${figures.cache.detail}`];
  },
  plan: {
    ...USERS_PLAN,
    loop: () => "closed loop of conversations",
    // Its tokens per turn and in all, and whether each level's requests reach its last turn.
    after: (levels, workload) => {
      const talk = conversationPlan(workload);
      if (!talk) return [];
      const byTurn = talk.promptTokensByTurn.map((tokens, i) => `${i + 1}: ${number(tokens)}`).join(", ");
      const lines = [
        `  conversation: ${talk.turns} turn${talk.turns === 1 ? "" : "s"} each, N users in conversation at level N, ${talk.thinkSeconds} s of think time between an answer and the next question; a ${number(talk.sharedPrefixTokens)}-token system prompt, ${number(talk.turnPromptTokens)}-token questions, answers up to ${number(workload.maxTokens)} tokens`,
        `    prompt tokens by turn: ${byTurn}`,
        `    in all, a conversation: ${number(talk.promptTokens)} prompt tokens (up to ${number(talk.cacheablePromptTokens)} a prefix cache can serve: the system prompt and the history) and ${number(talk.outputTokens)} answer tokens`,
      ];
      // A counted level's N users share its requests: below turns x N, some never reach the last turn.
      const perLevel = workload.requestsPerLevel;
      const short = perLevel === undefined ? [] : levels.filter((l) => perLevel < talk.turns * l.load.concurrency);
      if (short.length)
        lines.push(
          `  warning: requestsPerLevel ${perLevel} is under turns x N at level${short.length === 1 ? "" : "s"} ${short.map((l) => l.load.concurrency).join(", ")}: not every user reaches turn ${talk.turns} there, so the later turns have few samples or none`,
        );
      return lines;
    },
  },
  driver: conversationDriver,
};
