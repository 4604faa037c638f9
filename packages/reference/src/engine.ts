/**
 * @module A simulated continuous-batching engine. Each sequence holding a batch slot advances on its
 * own timer (processor sharing), one token per decode step of `stepBaseMs + stepPerSeqMs x occupied`,
 * so the expected throughput at every concurrency follows exactly from the parameters. Its time comes
 * from a scheduler: the system one when serving, a manual one in tests that want exact times.
 */
import { type Scheduler, systemScheduler, type Timer } from "@kneeboard/core/scheduler";

/** Parameters of one simulated model (ms unless noted). */
export interface EngineProfile {
  stepBaseMs: number;
  stepPerSeqMs: number;
  /** Batch slots; requests beyond them wait in a FIFO queue. */
  slots: number;
  prefillBaseMs: number;
  prefillPerTokenMs: number;
  /** KV-cache budget in tokens (prompt + generated of every occupied sequence). */
  kvCacheTokens?: number;
}

/** A sequence as the engine sees it; `emit` is called once per generated token. */
export interface Sequence {
  promptTokens: number;
  /** Prompt tokens a prefix cache holds: prefill costs only the rest (default 0). */
  cachedTokens?: number;
  maxTokens: number;
  generated: number;
  emit(token: number): void;
  done(): void;
}

interface Running {
  seq: Sequence;
  timer?: Timer;
  nextAtMs: number;
}

/** Time-weighted in-flight statistics plus a bounded log of changes. */
export class InFlightStats {
  constructor(private readonly clock: Pick<Scheduler, "now"> = systemScheduler) {}
  inFlight = 0;
  maxInFlight = 0;
  readonly log: { tMs: number; inFlight: number }[] = [];
  change(delta: number): void {
    this.inFlight += delta;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (this.log.length < 200_000) this.log.push({ tMs: this.clock.now(), inFlight: this.inFlight });
  }
  reset(): void {
    this.maxInFlight = this.inFlight;
    this.log.length = 0;
  }
  /** Time-weighted mean in-flight over [fromMs, toMs] (the clock's ms: `performance.now` when serving). */
  meanBetween(fromMs: number, toMs: number): number {
    let current = [...this.log].reverse().find((e) => e.tMs <= fromMs)?.inFlight ?? 0;
    let last = fromMs;
    let area = 0;
    for (const e of this.log) {
      if (e.tMs <= fromMs) continue;
      if (e.tMs >= toMs) break;
      area += current * (e.tMs - last);
      current = e.inFlight;
      last = e.tMs;
    }
    area += current * (toMs - last);
    return toMs > fromMs ? area / (toMs - fromMs) : 0;
  }
}

export class Engine {
  private readonly queue: Sequence[] = [];
  private readonly running = new Map<Sequence, Running>();
  readonly stats: InFlightStats;

  constructor(
    readonly profile: EngineProfile,
    private readonly scheduler: Scheduler = systemScheduler,
  ) {
    this.stats = new InFlightStats(scheduler);
  }

  get occupied(): number {
    return this.running.size;
  }

  private stepMs(): number {
    return this.profile.stepBaseMs + this.profile.stepPerSeqMs * this.running.size;
  }

  private kvUsed(): number {
    let used = 0;
    for (const { seq } of this.running.values()) used += seq.promptTokens + seq.generated;
    return used;
  }

  /** Queues a sequence; it starts as soon as a slot (and KV budget) is free. */
  submit(seq: Sequence): void {
    this.queue.push(seq);
    this.admit();
  }

  /** Removes a sequence wherever it is (the client went away), freeing its slot. */
  cancel(seq: Sequence): void {
    const index = this.queue.indexOf(seq);
    if (index >= 0) this.queue.splice(index, 1);
    const running = this.running.get(seq);
    if (running) {
      running.timer?.cancel();
      this.running.delete(seq);
      this.admit();
    }
  }

  private admit(): void {
    const budget = this.profile.kvCacheTokens ?? Number.POSITIVE_INFINITY;
    while (this.queue.length && this.running.size < this.profile.slots) {
      const next = this.queue[0] as Sequence;
      if (this.running.size > 0 && this.kvUsed() + next.promptTokens + next.generated + 1 > budget) break;
      this.queue.shift();
      const prefillMs =
        this.profile.prefillBaseMs +
        this.profile.prefillPerTokenMs * Math.max(0, next.promptTokens - (next.cachedTokens ?? 0));
      const running: Running = { seq: next, nextAtMs: this.scheduler.now() + prefillMs };
      this.running.set(next, running);
      this.schedule(running);
    }
  }

  // Absolute target times: timer lateness does not accumulate over a stream.
  private schedule(running: Running): void {
    running.timer = this.scheduler.setTimer(() => this.tick(running), running.nextAtMs - this.scheduler.now());
  }

  private tick(running: Running): void {
    const { seq } = running;
    if (!this.running.has(seq)) return;
    seq.generated++;
    seq.emit(seq.generated);
    if (seq.generated >= seq.maxTokens) {
      this.running.delete(seq);
      seq.done();
      this.admit();
      return;
    }
    const budget = this.profile.kvCacheTokens ?? Number.POSITIVE_INFINITY;
    if (this.kvUsed() > budget && this.running.size > 1) {
      // Preempt the newest sequence back to the head of the queue; it re-does prefill later.
      const newest = [...this.running.values()].at(-1) as Running;
      newest.timer?.cancel();
      this.running.delete(newest.seq);
      this.queue.unshift(newest.seq);
      if (newest === running) return;
    }
    running.nextAtMs += this.stepMs();
    this.schedule(running);
  }

  /** Stops every timer (server shutdown). */
  stop(): void {
    for (const r of this.running.values()) r.timer?.cancel();
    this.running.clear();
    this.queue.length = 0;
  }
}

/** What a closed loop with N always in flight should measure, from the parameters alone. */
export interface ExpectedThroughput {
  perStreamOutputTokensPerSecond: number;
  perStreamDecodeTokensPerSecond: number;
  aggregateOutputTokensPerSecond: number;
  ttftMs: number;
  e2eMs: number;
  /** False when the KV budget binds, where the figures are only an approximation. */
  exact: boolean;
}

export function expectedThroughput(
  profile: EngineProfile,
  w: { concurrency: number; promptTokens: number; maxTokens: number },
): ExpectedThroughput {
  const kvPerSeq = w.promptTokens + w.maxTokens;
  const kvSlots = profile.kvCacheTokens
    ? Math.max(1, Math.floor(profile.kvCacheTokens / kvPerSeq))
    : Number.POSITIVE_INFINITY;
  const active = Math.min(w.concurrency, profile.slots, kvSlots);
  const stepMs = profile.stepBaseMs + profile.stepPerSeqMs * active;
  const prefillMs = profile.prefillBaseMs + profile.prefillPerTokenMs * w.promptTokens;
  const serviceMs = prefillMs + (w.maxTokens - 1) * stepMs;
  const e2eMs = w.concurrency <= active ? serviceMs : (serviceMs * w.concurrency) / active;
  const ttftMs = e2eMs - (w.maxTokens - 1) * stepMs;
  return {
    perStreamOutputTokensPerSecond: w.maxTokens / (e2eMs / 1000),
    perStreamDecodeTokensPerSecond: (w.maxTokens - 1) / ((e2eMs - ttftMs) / 1000),
    aggregateOutputTokensPerSecond: (active * w.maxTokens) / (serviceMs / 1000),
    ttftMs,
    e2eMs,
    exact: kvSlots >= Math.min(w.concurrency, profile.slots),
  };
}
