/**
 * @module A conversation level's own figures, nested under `level.conversation`
 * (docs/run-document.md#a-levels-kind-and-its-figures): by turn, the prompt-cache verdict and its
 * workers' start spread.
 */
import { z } from "zod";
import { WorkersFigures } from "../../drive/workers.ts";

/** One turn of a level's conversations: its ok samples' TTFT and what the route said it cached. */
export const TurnFigures = z.object({
  /** 1-based. */
  turn: z.number().int().positive(),
  /** Ok samples of this turn. */
  n: z.number().int().nonnegative(),
  /** TTFT p50 and p95 of the turn's ok samples, ms; null without one. */
  ttftMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
  /** Median prompt tokens of the turn as the route counted them (`usage.prompt_tokens`); null when not reported. */
  promptTokensP50: z.number().nullable(),
  /** Cached prompt tokens / prompt tokens of the turn's ok samples that report both (0..1); null when none reports. */
  cachedPromptTokenShare: z.number().nonnegative().nullable(),
});
export type TurnFigures = z.infer<typeof TurnFigures>;

/**
 * What a level's conversations say of the route's prompt cache (docs/methodology.md#the-prompt-cache-verdict):
 * `reported`, a later turn reported cached prompt tokens; when none did, by what TTFT did over the
 * turns, `no_cache_seen` (it grew with the history) or `not_reported` (it stayed flat); `undetermined`
 * when the turns cannot tell (too few turns or samples, or too little prompt growth).
 */
export const CacheVerdict = z.enum(["reported", "no_cache_seen", "not_reported", "undetermined"]);
export type CacheVerdict = z.infer<typeof CacheVerdict>;

/** A conversation level's figures by turn and its cache verdict, as the summary computes them from its samples. */
export const ConversationTurns = z.object({
  /** Turns of each conversation, as configured. */
  turns: z.number().int().positive(),
  /** Think time between an answer and the next question, seconds, as configured. */
  thinkSeconds: z.number().nonnegative(),
  /** One entry per turn 1 .. turns, in order (a turn no sample reached has n 0). */
  byTurn: z.array(TurnFigures),
  /** TTFT p50 and p95 over the ok samples of turns 2 and later, ms (what the conversation leaderboard ranks by); null without one. */
  laterTurnsTtftMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
  cache: z.object({
    verdict: CacheVerdict,
    /** The turns compared: the last turn with samples against turn 2 (turn 1 when only two turns); null when undetermined for want of them. */
    fromTurn: z.number().int().positive().nullable(),
    toTurn: z.number().int().positive().nullable(),
    /**
     * TTFT of `toTurn` over `fromTurn`'s, read off a robust (Theil-Sen) line of TTFT against prompt
     * tokens through the ok samples of turns `fromTurn` to `toTurn`, at each turn's `promptTokensP50`;
     * null when not compared.
     */
    ttftRatio: z.number().nullable(),
    /** Prompt tokens p50 of `toTurn` over `fromTurn`'s; null when not compared. */
    promptRatio: z.number().nullable(),
    /** The TTFT ratio at or over which the TTFT grew with the history: 1 + (promptRatio - 1) / 4; null when not compared. */
    growthThreshold: z.number().nullable(),
    /** The verdict in words. */
    detail: z.string(),
  }),
});
export type ConversationTurns = z.infer<typeof ConversationTurns>;

/**
 * A conversation level's own figures (`level.conversation`): its workers' start spread (a closed
 * loop's, `WorkersFigures`), its figures by turn and what they say of the prompt cache.
 */
export const ConversationFigures = z.object({ ...WorkersFigures.shape, ...ConversationTurns.shape });
export type ConversationFigures = z.infer<typeof ConversationFigures>;

/** What a conversation level's figures are made of: its start spread, and its turns' figures (null when not measured). */
export interface ConversationParts extends WorkersFigures {
  conversation: ConversationTurns | null;
}

/** A conversation level's figures; null when its turns were not measured. */
export function conversationFiguresOf({ startSpreadMs, conversation }: ConversationParts): ConversationFigures | null {
  return conversation ? { startSpreadMs, ...conversation } : null;
}
