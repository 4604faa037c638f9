/**
 * @module A conversation level's sessions (docs/methodology.md#conversations): each worker is one
 * user who holds conversations of `turns` turns, one after another. A turn's request re-sends the
 * conversation so far; after its answer the user thinks for `thinkMs` before the next question.
 */
import type { WorkerSession } from "../../drive/session.ts";

/** A closed loop's conversations, as its driver spec carries them. */
export interface ConversationSpec {
  /** Turns of each conversation. */
  turns: number;
  /** A reader's pause between an answer and the next question of the same conversation, ms. */
  thinkMs: number;
  /** The same pause in seconds, as the level's figures record it. */
  thinkSeconds: number;
}

/**
 * The conversations of a loop's workers, one at a time per worker. A turn that did not end `ok` with
 * an answer ends its conversation (no answer to carry on from; nothing is re-sent): the worker's next
 * send opens a new one at turn 1, at once. So does the last turn: a new user starts as the last leaves.
 */
export function conversations(spec: ConversationSpec): WorkerSession {
  const open = new Map<number, { conversation: number; answers: string[] }>();
  return {
    next(worker, index) {
      let talk = open.get(worker);
      if (!talk) {
        talk = { conversation: index, answers: [] };
        open.set(worker, talk);
      }
      return { conversation: talk.conversation, turn: talk.answers.length + 1, answers: [...talk.answers] };
    },
    after(worker, raw) {
      const talk = open.get(worker);
      if (!talk) return 0;
      if (raw.outcome !== "ok" || raw.answerText === undefined) {
        open.delete(worker);
        return 0;
      }
      talk.answers.push(raw.answerText);
      if (talk.answers.length >= spec.turns) {
        open.delete(worker);
        return 0;
      }
      return spec.thinkMs;
    },
  };
}
