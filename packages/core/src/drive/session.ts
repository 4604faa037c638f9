/**
 * @module What a worker carries across its sends when it is one user holding a conversation: the turn
 * it sends and the session that says which turn comes next. The worker loop (./loop.ts) runs any
 * session; the conversation kind supplies one.
 */
import type { RawResult } from "../client/index.ts";

/** What a worker's send of one turn carries: which conversation, which turn, and the answers so far. */
export interface Turn {
  /** The conversation's number: the level's index of its first turn's request (unique in the level). */
  conversation: number;
  /** 1-based. */
  turn: number;
  /**
   * The answers received to turns 1 .. turn - 1, in order: the request re-sends them between the
   * earlier questions (which are rebuilt from the conversation and turn, as they were first sent).
   */
  answers: string[];
}

/** What the worker loop asks of a worker's own state across its sends (see `runWorkers`). */
export interface WorkerSession {
  /** The turn worker `worker` sends as request `index`. */
  next(worker: number, index: number): Turn;
  /** Worker `worker`'s turn ended with `raw`: the pause before its next send, ms. */
  after(worker: number, raw: RawResult): number;
}
