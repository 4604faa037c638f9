/**
 * @module A step-synchronous continuous-batching decoder on a `Scheduler`, the route of known capacity
 * of the search's acceptance tests: up to `slots` sequences decode at once (more wait in a FIFO queue
 * and join at a step boundary), every step emits one token to each active sequence and lasts
 * `stepBaseMs + stepPerSeqMs x active`, off by a seeded jitter. Steps run on absolute deadlines (the
 * next step is due at the previous due time plus its duration), so a late timer on a busy machine does
 * not stretch a stream. The same decoder drives a real HTTP server on the system clock
 * (./batch-server.ts) and an in-memory endpoint on a manual scheduler (./batch-endpoint.ts). It
 * misbehaves as real servers do, seeded and rarely (a stream cut or ended by an error event), and
 * counts what it received, completed and broke.
 */
import { seededRandom } from "@kneeboard/core/random";
import type { Scheduler } from "@kneeboard/core/scheduler";

/** The decoder's parameters (ms unless noted). */
export interface BatchProfile {
  /** Sequences decoding at once; more wait in a FIFO queue. */
  slots: number;
  stepBaseMs: number;
  stepPerSeqMs: number;
  /** Each step's duration is off by a uniform share in [-jitter, +jitter] (0.05: +-5 %). */
  jitter: number;
  /**
   * A step's sequences are taken this long after its due start (its duration still counts from the due
   * start): a request sent as another ended joins the step that ended one has left, as it does on a
   * manual scheduler, where no time passes in between. 0 on a manual scheduler (taken once the
   * continuations have run), a few ms over HTTP (the client's next request on its way).
   */
  admitWindowMs: number;
  /** One request in `faultEvery`, drawn at random (seeded), breaks partway: its stream is cut or ends with an error event; 0: none. */
  faultEvery: number;
  seed: number;
  /**
   * Answers of drawn length, as a real model's (seeded; absent: every answer runs to its max_tokens): a
   * share `long` runs to max_tokens, the rest end uniformly between 1 token and `short` x max_tokens.
   */
  lengths?: { long: number; short: number };
  /**
   * A real engine's per-request noise: each sequence has its own chance, drawn uniformly in [0, stall],
   * of emitting no token at a step (preempted, a rejected draft): some requests are slower than the
   * others in their steps, and take longer. Absent: none.
   */
  stall?: number;
}

/** The route: 16 slots, a step of 20 + 4 x active ms, +-5 % jitter, one request in 50 broken. */
export const KNOWN_CAPACITY_ROUTE: BatchProfile = {
  slots: 16,
  stepBaseMs: 20,
  stepPerSeqMs: 4,
  jitter: 0.05,
  admitWindowMs: 0,
  faultEvery: 50,
  seed: 1,
};

/** How a sequence breaks: its connection closed, or an SSE error event, after `afterTokens` tokens. */
export interface Fault {
  kind: "close" | "error";
  afterTokens: number;
}

/** What a stream hears from the decoder: a token at its time, then its end. */
export interface DecodeListener {
  token(index: number, atMs: number): void;
  /** `done` after the last token (`tokens` of them: the answer's drawn length); a fault ends it early. */
  end(how: "done" | Fault["kind"], atMs: number, tokens: number): void;
}

/** What the decoder received, completed, broke and saw cancelled (the client went away). */
export interface DecoderCounts {
  received: number;
  completed: number;
  closed: number;
  errored: number;
  cancelled: number;
  tokens: number;
}

interface Sequence {
  tokens: number;
  /** Its chance of emitting no token at a step (`BatchProfile.stall`). */
  stall: number;
  generated: number;
  fault: Fault | null;
  listener: DecodeListener;
  ended: boolean;
}

export class BatchDecoder {
  readonly counts: DecoderCounts = { received: 0, completed: 0, closed: 0, errored: 0, cancelled: 0, tokens: 0 };
  /** Steps run, with how many sequences each decoded. */
  readonly steps: { dueMs: number; durationMs: number; active: number }[] = [];
  private readonly queue: Sequence[] = [];
  private readonly active = new Set<Sequence>();
  private readonly random: () => number;
  private readonly faultRandom: () => number;
  /** The due start of the step running (or about to be composed); null when idle. */
  private stepDueMs: number | null = null;

  constructor(
    readonly profile: BatchProfile,
    private readonly scheduler: Scheduler,
  ) {
    this.random = seededRandom(profile.seed);
    this.faultRandom = seededRandom(profile.seed + 1_000_003);
    this.answerRandom = seededRandom(profile.seed + 2_000_003);
  }

  private readonly answerRandom: () => number;

  /** The answer's length for a request of `maxTokens` (`BatchProfile.lengths`). */
  private drawLength(maxTokens: number): number {
    const lengths = this.profile.lengths;
    if (!lengths || this.answerRandom() < lengths.long) return maxTokens;
    return 1 + Math.floor(this.answerRandom() * Math.max(1, Math.floor(lengths.short * maxTokens)));
  }

  /** Sequences decoding and waiting now. */
  get load(): { active: number; queued: number } {
    return { active: this.active.size, queued: this.queue.length };
  }

  /** Queues a request for `tokens` tokens; it joins at the next step boundary. Returns its cancel. */
  submit(tokens: number, listener: DecodeListener): () => void {
    this.counts.received++;
    const length = this.drawLength(tokens);
    const stall = (this.profile.stall ?? 0) * this.answerRandom();
    const seq: Sequence = {
      tokens: length,
      stall,
      generated: 0,
      fault: this.drawFault(length),
      listener,
      ended: false,
    };
    this.queue.push(seq);
    // Idle: a step starts now.
    if (this.stepDueMs === null) this.beginStep(this.scheduler.now());
    return () => {
      if (seq.ended) return;
      seq.ended = true;
      this.counts.cancelled++;
      this.active.delete(seq);
      const i = this.queue.indexOf(seq);
      if (i >= 0) this.queue.splice(i, 1);
    };
  }

  /** The drawn fault of the request that just arrived: one in `faultEvery`, half cut and half an error event, partway. */
  private drawFault(tokens: number): Fault | null {
    const every = this.profile.faultEvery;
    if (every <= 0 || tokens < 2) return null;
    if (this.faultRandom() >= 1 / every) return null;
    const kind = this.faultRandom() < 0.5 ? "close" : "error";
    return { kind, afterTokens: 1 + Math.floor(this.faultRandom() * (tokens - 1)) };
  }

  /** Takes the step due at `dueMs`: its sequences are composed once the admission window has passed. */
  private beginStep(dueMs: number): void {
    this.stepDueMs = dueMs;
    const composeIn = dueMs + this.profile.admitWindowMs - this.scheduler.now();
    this.scheduler.setTimer(() => this.composeStep(dueMs), composeIn);
  }

  private composeStep(dueMs: number): void {
    while (this.queue.length > 0 && this.active.size < this.profile.slots)
      this.active.add(this.queue.shift() as Sequence);
    if (this.active.size === 0) {
      this.stepDueMs = null;
      return;
    }
    const { stepBaseMs, stepPerSeqMs, jitter } = this.profile;
    const durationMs = (stepBaseMs + stepPerSeqMs * this.active.size) * (1 + jitter * (2 * this.random() - 1));
    this.steps.push({ dueMs, durationMs, active: this.active.size });
    const members = [...this.active];
    const endMs = dueMs + durationMs;
    this.scheduler.setTimer(() => this.endStep(members, endMs), endMs - this.scheduler.now());
  }

  /** Each member still active gets its token (at the step's due end), ends if done or broken; the next step is due now. */
  private endStep(members: Sequence[], endMs: number): void {
    for (const seq of members) {
      if (seq.ended) continue;
      if (seq.stall > 0 && this.answerRandom() < seq.stall) continue;
      seq.generated++;
      this.counts.tokens++;
      seq.listener.token(seq.generated, endMs);
      if (seq.fault && seq.generated >= seq.fault.afterTokens) {
        this.finish(seq, seq.fault.kind, endMs);
        if (seq.fault.kind === "close") this.counts.closed++;
        else this.counts.errored++;
      } else if (seq.generated >= seq.tokens) {
        this.finish(seq, "done", endMs);
        this.counts.completed++;
      }
    }
    if (this.active.size > 0 || this.queue.length > 0) this.beginStep(endMs);
    else this.stepDueMs = null;
  }

  private finish(seq: Sequence, how: "done" | Fault["kind"], atMs: number): void {
    seq.ended = true;
    this.active.delete(seq);
    seq.listener.end(how, atMs, seq.generated);
  }
}

/** What a closed loop of N users measures per stream in steady state: 1000 / (stepBase + stepPerSeq x min(N, slots)) tok/s. */
export function perStreamAt(profile: BatchProfile, n: number): number {
  return 1000 / (profile.stepBaseMs + profile.stepPerSeqMs * Math.min(n, profile.slots));
}
