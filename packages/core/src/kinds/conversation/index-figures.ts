/**
 * @module What a conversation level shows in the run index (its later turns' TTFT, its turns in brief,
 * the cache verdict) and in a standing (the later turns' TTFT over runs, what its leaderboard ranks
 * by, and the verdict most runs gave).
 */
import { z } from "zod";
import type { KindIndexFigures } from "../../drive/kind.ts";
import { Estimate, estimate, mostGiven } from "../../stats/median.ts";
import { CacheVerdict, type ConversationFigures } from "./figures.ts";

/** A conversation level's fields of the run index. */
export const CONVERSATION_INDEX = {
  /** A conversation level: TTFT p50 of its turns 2 and later, ms; null otherwise (and in entries recorded before conversations). */
  laterTurnsTtftP50Ms: z.number().nullable().default(null),
  /** A conversation level: TTFT and cached share by turn, and the cache verdict; null otherwise. */
  conversation: z
    .object({
      byTurn: z.array(
        z.object({
          turn: z.number().int().positive(),
          n: z.number().int().nonnegative(),
          ttftP50Ms: z.number().nullable(),
          ttftP95Ms: z.number().nullable(),
          cachedPromptTokenShare: z.number().nullable(),
        }),
      ),
      cacheVerdict: CacheVerdict,
    })
    .nullable()
    .default(null),
};

/** A conversation level's fields of a standing. */
export const CONVERSATION_STANDING = {
  /** A conversation level: TTFT p50 of turns 2 and later (what its leaderboard ranks by); null otherwise. */
  laterTurnsTtftP50Ms: Estimate.nullable().default(null),
  /**
   * A conversation level: the prompt-cache verdict most of its valid runs gave (a tie: the newest
   * run's among the tied); null otherwise.
   */
  cacheVerdict: CacheVerdict.nullable().default(null),
};

export const conversationIndex: KindIndexFigures<
  ConversationFigures,
  typeof CONVERSATION_INDEX,
  typeof CONVERSATION_STANDING
> = {
  entry: CONVERSATION_INDEX,
  entryOf: (figures) => ({
    laterTurnsTtftP50Ms: figures.laterTurnsTtftMs.p50,
    conversation: {
      byTurn: figures.byTurn.map((t) => ({
        turn: t.turn,
        n: t.n,
        ttftP50Ms: t.ttftMs.p50,
        ttftP95Ms: t.ttftMs.p95,
        cachedPromptTokenShare: t.cachedPromptTokenShare,
      })),
      cacheVerdict: figures.cache.verdict,
    },
  }),
  standing: CONVERSATION_STANDING,
  standingOf: (valid) => ({
    laterTurnsTtftP50Ms: estimate(valid.map((l) => l.laterTurnsTtftP50Ms).filter((v): v is number => v !== null)),
    cacheVerdict: mostGiven(valid.flatMap((l) => (l.conversation ? [l.conversation.cacheVerdict] : []))),
  }),
};
