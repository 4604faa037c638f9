/**
 * @module A phase of fixed requests after a sweep's levels (the canary, the tool calls): its asks sent
 * in order by `concurrency` workers, so a phase cut short keeps its prompts even when the asks go
 * round by round. It stops when the sweep stops, when an answer says to, or when its first
 * `EARLY_STOP_REQUESTS` requests all fail: a dead route costs seconds, as a level's does.
 */

/** As a level's: when the phase's first this many requests all fail, it sends no more. */
export const PHASE_EARLY_STOP_REQUESTS = 4;

/** What one ask came to: its answer, whether the request was ok, and a reason to stop the phase, if any. */
export interface PhaseReply<Answer> {
  answer: Answer;
  ok: boolean;
  stop?: string | null;
}

export interface PhaseOptions<Ask, Answer> {
  asks: readonly Ask[];
  concurrency: number;
  /** The sweep's stop, checked before each send; its reason ends the phase. */
  stopReason: () => string | null;
  send: (ask: Ask) => Promise<PhaseReply<Answer>>;
}

/** Runs the asks; the answers of those sent, in the asks' order, and why the phase ended early (or null). */
export async function runPhase<Ask, Answer>(
  options: PhaseOptions<Ask, Answer>,
): Promise<{ answers: Answer[]; stopped: string | null }> {
  const { asks } = options;
  const answers: (Answer | undefined)[] = new Array(asks.length);
  let next = 0;
  let stopped: string | null = null;
  let failedFirst = 0;
  let answeredFirst = 0;
  const worker = async () => {
    while (stopped === null && next < asks.length) {
      const reason = options.stopReason();
      if (reason !== null) {
        stopped = reason;
        return;
      }
      const at = next++;
      const reply = await options.send(asks[at] as Ask);
      answers[at] = reply.answer;
      if (reply.stop) stopped ??= reply.stop;
      if (at < PHASE_EARLY_STOP_REQUESTS) {
        answeredFirst += reply.ok ? 1 : 0;
        failedFirst += reply.ok ? 0 : 1;
        if (failedFirst === Math.min(PHASE_EARLY_STOP_REQUESTS, asks.length) && answeredFirst === 0)
          stopped ??= `its first ${failedFirst} requests all failed`;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, asks.length)) }, worker));
  return { answers: answers.filter((a): a is Answer => a !== undefined), stopped };
}
