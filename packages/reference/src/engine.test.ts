/** @module The simulated engine on a manual scheduler: every token at the time its parameters give, exactly. */
import { ManualScheduler } from "@kneeboard/core/scheduler/manual";
import { describe, expect, it } from "vitest";
import { Engine, type EngineProfile, expectedThroughput, type Sequence } from "./engine.ts";

const PROFILE: EngineProfile = { stepBaseMs: 2, stepPerSeqMs: 1, slots: 4, prefillBaseMs: 5, prefillPerTokenMs: 0.5 };

/** A sequence that records when each token and its end came, on the scheduler's clock. */
function sequence(scheduler: ManualScheduler, promptTokens: number, maxTokens: number) {
  const tokenMs: number[] = [];
  let doneMs: number | null = null;
  const seq: Sequence = {
    promptTokens,
    maxTokens,
    generated: 0,
    emit: () => tokenMs.push(scheduler.now()),
    done: () => {
      doneMs = scheduler.now();
    },
  };
  return { seq, tokenMs, doneMs: () => doneMs };
}

describe("Engine", () => {
  it("writes the first token after prefill, then one per decode step", async () => {
    const scheduler = new ManualScheduler();
    const engine = new Engine(PROFILE, scheduler);
    const one = sequence(scheduler, 10, 5);
    engine.submit(one.seq);
    await scheduler.advance(100);
    // Prefill 5 + 0.5 x 10 = 10 ms; then steps of 2 + 1 x 1 occupied = 3 ms.
    expect(one.tokenMs).toEqual([10, 13, 16, 19, 22]);
    expect(one.doneMs()).toBe(22);
    const expected = expectedThroughput(PROFILE, { concurrency: 1, promptTokens: 10, maxTokens: 5 });
    expect([expected.ttftMs, expected.e2eMs]).toEqual([10, 22]);
  });

  it("shares decode steps among the sequences it holds, and queues past its slots", async () => {
    const scheduler = new ManualScheduler();
    const engine = new Engine({ ...PROFILE, slots: 2 }, scheduler);
    const [a, b, c] = [0, 1, 2].map(() => sequence(scheduler, 10, 3)) as [
      ReturnType<typeof sequence>,
      ReturnType<typeof sequence>,
      ReturnType<typeof sequence>,
    ];
    for (const s of [a, b, c]) engine.submit(s.seq);
    await scheduler.advance(200);
    // Two held at once: steps of 2 + 1 x 2 = 4 ms.
    expect(a.tokenMs).toEqual([10, 14, 18]);
    expect(b.tokenMs).toEqual([10, 14, 18]);
    // The third waited for a slot (free at 18), then ran alone: prefill to 28, then 3 ms steps.
    expect(c.tokenMs).toEqual([28, 31, 34]);
    expect(engine.occupied).toBe(0);
  });

  it("frees a cancelled sequence's slot at once", async () => {
    const scheduler = new ManualScheduler();
    const engine = new Engine({ ...PROFILE, slots: 1 }, scheduler);
    const first = sequence(scheduler, 10, 100);
    const second = sequence(scheduler, 10, 2);
    engine.submit(first.seq);
    engine.submit(second.seq);
    await scheduler.advance(12);
    engine.cancel(first.seq);
    await scheduler.advance(100);
    expect(first.tokenMs).toEqual([10]);
    expect(second.tokenMs).toEqual([22, 25]);
  });
});
