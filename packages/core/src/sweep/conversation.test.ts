/**
 * @module Conversations on a manual scheduler with a scripted endpoint: turns in order, the think time
 * waited between an answer and the next question in exact numbers, a failed turn ending its conversation.
 */
import { describe, expect, it } from "vitest";
import { runSweep } from "./index.ts";
import { setup, TOKENS } from "./scripted.fixture.ts";

const conversation = { turns: 3, sharedPrefixTokens: 10, thinkSeconds: 2 };

describe("a conversation level on a manual scheduler", () => {
  it("asks turn after turn, 2 s of think time after each answer but the last, the history re-sent", async () => {
    const { scheduler, endpoint, options } = setup(
      { concurrency: [1], requestsPerLevel: 6, warmupRequests: 0, conversation },
      () => ({ outcome: "ok", durationMs: 100 }),
    );
    const doc = await scheduler.run(runSweep(options));
    const level = doc.levels[0] as (typeof doc.levels)[number];
    // Two conversations of 3 turns; 100 ms a turn, 2 s of thinking between turns, none after the last.
    expect(doc.samples.map((s) => s.turn)).toEqual([1, 2, 3, 1, 2, 3]);
    expect(endpoint.arrivals.map((a) => a.atMs)).toEqual([0, 2100, 4200, 4300, 6400, 8500]);
    expect(scheduler.now()).toBe(8600);
    // Each turn re-sends the run's system prompt and the earlier questions, each followed by its answer.
    const requests = endpoint.arrivals.map((a) => a.request);
    expect(new Set(requests.map((r) => r.system)).size).toBe(1);
    expect(requests.map((r) => r.history?.length)).toEqual([0, 2, 4, 0, 2, 4]);
    const third = requests[2];
    expect(third?.history?.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(third?.history?.[0]?.content).toBe(requests[0]?.prompt);
    expect(third?.history?.[1]?.content).toBe(" tok".repeat(TOKENS));
    expect(third?.history?.[2]?.content).toBe(requests[1]?.prompt);
    // A new conversation asks new questions.
    expect(requests[3]?.prompt).not.toBe(requests[0]?.prompt);
    // The worker thinking is not a client falling behind; the figures come by turn.
    expect(level.invalid.map((r) => r.code)).not.toContain("client_concurrency");
    expect(level.conversation?.byTurn.map((t) => t.n)).toEqual([2, 2, 2]);
    expect(level.conversation?.thinkSeconds).toBe(2);
  });

  it("ends a conversation at a failed turn: the next send opens a new one at once, nothing re-sent", async () => {
    // The 2nd request (turn 2) fails.
    const { scheduler, endpoint, options } = setup(
      { concurrency: [1], requestsPerLevel: 5, warmupRequests: 0, conversation },
      (n) => (n === 1 ? { outcome: "http_error", durationMs: 10 } : { outcome: "ok", durationMs: 100 }),
    );
    const doc = await scheduler.run(runSweep(options));
    expect(doc.samples.map((s) => [s.turn, s.outcome])).toEqual([
      [1, "ok"],
      [2, "http_error"],
      [1, "ok"],
      [2, "ok"],
      [3, "ok"],
    ]);
    // Think after turn 1 (0 -> 100, send at 2100), no think after the failure (2110), then 2 s again.
    expect(endpoint.arrivals.map((a) => a.atMs)).toEqual([0, 2100, 2110, 4210, 6310]);
    expect(new Set(endpoint.arrivals.map((a) => a.prompt)).size).toBe(5);
  });
});
