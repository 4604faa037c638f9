/**
 * @module Conversations on a manual scheduler with a scripted endpoint: turns in order, the think time
 * waited between an answer and the next question in exact numbers, a failed turn ending its conversation.
 */
import { describe, expect, it } from "vitest";
import { concurrencyOf, RunDocument } from "../run/index.ts";
import { indexEntryFor, RunIndexEntry } from "../run-index/index.ts";
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

  it("names its levels' loads `conversation`, and reads a version 2 document's and index entry's closed ones as such", async () => {
    const { scheduler, options } = setup(
      { concurrency: [1, 2], requestsPerLevel: 6, warmupRequests: 0, conversation },
      () => ({ outcome: "ok", durationMs: 100 }),
    );
    const doc = await scheduler.run(runSweep(options));
    expect(doc.schemaVersion).toBe(4);
    expect(doc.levels.map((l) => l.load)).toEqual([
      { kind: "conversation", concurrency: 1, turns: 3 },
      { kind: "conversation", concurrency: 2, turns: 3 },
    ]);
    // Before conversations were a kind, the same run was written as version 2 with closed loads (N users).
    const n = (level: number) => concurrencyOf((doc.levels[level - 1] as (typeof doc.levels)[number]).load);
    const closed = <T extends { level: number }>(x: T | null) =>
      x && { ...x, load: { kind: "closed", concurrency: n(x.level) } };
    const v2 = JSON.parse(JSON.stringify(doc));
    v2.schemaVersion = 2;
    // ... its start spread flat on the level, beside its figures by turn (version 4 nests both).
    v2.levels = v2.levels.map(
      ({
        conversation: { startSpreadMs, ...byTurn },
        ...l
      }: {
        conversation: Record<string, unknown>;
        level: number;
      }) => closed({ ...l, startSpreadMs, conversation: byTurn }),
    );
    for (const ref of ["peak", "goodputPeak", "stop"]) v2.summary[ref] = closed(v2.summary[ref]);
    expect(v2.levels[0].load).toEqual({ kind: "closed", concurrency: 1 });
    expect(RunDocument.parse(v2)).toEqual(RunDocument.parse(doc));
    const entry = indexEntryFor("runs/t/x.json", doc);
    const storedThen = JSON.parse(JSON.stringify(entry));
    storedThen.levels = storedThen.levels.map(closed);
    for (const ref of ["peak", "goodputPeak", "stop"]) storedThen.summary[ref] = closed(storedThen.summary[ref]);
    expect(RunIndexEntry.parse(storedThen)).toEqual(RunIndexEntry.parse(entry));
  });
});
