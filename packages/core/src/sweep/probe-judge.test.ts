/**
 * @module A probed level's judge at its looks: a level far from the SLO is decided at its first look,
 * but not while one broken stream among its few requests is over the failure rule's share (it would
 * make the level invalid and stop the sweep); it draws on to the look where the share is within it.
 */
import { describe, expect, it } from "vitest";
import type { RawResult } from "../client/index.ts";
import type { LoopResult } from "../drive/loop.ts";
import { documentLoad } from "../kinds/index.ts";
import { MAX_FAILURE_RATE, MIN_OPEN_LOOP_REQUESTS } from "../metrics/index.ts";
import { looksOf } from "../search/decide.ts";
import { drawPlan, ProbeJudge, validMinimumOf } from "./search.ts";

const TOKENS = 32;

/** One closed-loop result: 32 tokens at `stepMs` each from 0 (per-stream 1000 / stepMs tok/s), or a stream cut after 10. */
function result(index: number, stepMs: number, broken = false): LoopResult {
  const count = broken ? 10 : TOKENS;
  const chunks = Array.from({ length: count }, (_, i) => ({ tMs: stepMs * (i + 1), chars: 4 }));
  const raw: RawResult = {
    outcome: broken ? "incomplete" : "ok",
    startMs: 0,
    contentChunks: chunks,
    firstAnswerMs: stepMs,
    completionTokens: broken ? null : TOKENS,
    promptTokens: broken ? null : 100,
    reasoningTokens: null,
    cachedPromptTokens: null,
    costUsd: null,
    finishReason: broken ? null : "length",
    responseId: `r${index}`,
    servedProvider: null,
    httpStatus: 200,
    retryAfterSeconds: null,
    error: broken ? "stream broken: connection closed mid-response" : null,
    connection: "reused",
    sends: 1,
    staleSockets: 0,
    staleSocketMs: null,
    connectMs: null,
    tlsMs: null,
  };
  return { index, seq: index, raw, endMs: stepMs * count };
}

const SLO = { slo: { minOutputTokensPerSecond: 24, maxTtftMs: 2000 } };
const SPEED_ONLY = { slo: { minOutputTokensPerSecond: 24, maxTtftMs: null } };
/** N = 8: the first look after 2N = 16, then 32, then 64 (requestsPerLevel). */
const PLAN = { batch: 64, cap: 256, minimum: 16, group: 8, ramp: 0 };

describe("a probed level's judge", () => {
  it("decides a level far below the SLO at its first look", () => {
    const judge = new ProbeJudge(SLO, 0.95, PLAN);
    // 52 ms a token: 19.2 tok/s a stream, far under 24.
    const results = Array.from({ length: 16 }, (_, i) => result(i, 52));
    expect(looksOf(PLAN)[0]).toBe(16);
    expect(judge.judge(results.slice(0, 15))).toBe(false);
    expect(judge.judge(results)).toBe(true);
    expect(judge.probe(1, []).decision).toBe("misses");
  });

  it("draws on past a look whose failures are over the failure rule's share, and decides at the next look within it", () => {
    const judge = new ProbeJudge(SLO, 0.95, PLAN);
    const results = Array.from({ length: 32 }, (_, i) => result(i, 52, i === 3));
    // 1 of 16 (6.25 %) is over 5 %: the level would be invalid, so no decision yet.
    expect(1 / 16).toBeGreaterThan(MAX_FAILURE_RATE);
    expect(judge.judge(results.slice(0, 16))).toBe(false);
    // 1 of 32 (3.1 %) is within it: the look at 32 decides.
    expect(judge.judge(results)).toBe(true);
    expect(judge.probe(1, [])).toMatchObject({ decision: "misses", requests: 32 });
  });

  it("judges at requestsPerLevel as a ladder level would be, however many failed", () => {
    const judge = new ProbeJudge(SLO, 0.95, PLAN);
    // One in three broken: over 5 % at every look; at 64 the level is decided, and the failure rule makes it invalid as a ladder's.
    const results = Array.from({ length: 64 }, (_, i) => result(i, 52, i % 3 === 0));
    expect(judge.judge(results.slice(0, 16))).toBe(false);
    expect(judge.judge(results.slice(0, 32))).toBe(false);
    expect(judge.judge(results)).toBe(true);
    expect(judge.probe(1, []).decision).toBe("misses");
  });
});

describe("a probed level's draw plan", () => {
  const plan = { batch: 64, cap: 256, confidence: 0.95 } as Parameters<typeof drawPlan>[0];
  it("an open loop's first look waits for the requests its level is valid with (its rate is measured from its sends)", () => {
    const open = documentLoad({ kind: "open", ratePerSecond: 0.5, seed: 1, maxInFlight: 256, arrival: "poisson" });
    const closed = documentLoad({ kind: "closed", concurrency: 1 });
    expect(validMinimumOf(open)).toBe(MIN_OPEN_LOOP_REQUESTS);
    expect(validMinimumOf(closed)).toBe(0);
    // Its first 20 sends are its ramp (its queue builds), then two groups of 5: 30, past the 20 its
    // level is valid with (open_too_few_requests under 20).
    expect(drawPlan(plan, null).minimum).toBe(30);
    expect(looksOf(drawPlan(plan, null, { validMinimum: validMinimumOf(open) }))[0]).toBe(30);
    expect(MIN_OPEN_LOOP_REQUESTS).toBeLessThan(30);
    // A closed loop at N = 1: its 2-send ramp, then two groups of 5.
    expect(drawPlan(plan, 1, { validMinimum: validMinimumOf(closed) }).minimum).toBe(12);
  });

  it("a level above a load that missed sends a count for its aggregate only: 2N, and no fewer than 20 (one broken stream within 5 %)", () => {
    const notJudged = { judged: false };
    expect(drawPlan(plan, 32, notJudged).minimum).toBe(64);
    expect(drawPlan(plan, 4, notJudged).minimum).toBe(20);
    const judge = new ProbeJudge(SLO, 0.95, drawPlan(plan, 32, notJudged), false);
    // It sends exactly its count (no requests go out past it while the last ones end), and decides nothing.
    expect(judge.requests).toBe(64);
    expect(judge.judge(Array.from({ length: 64 }, (_, i) => result(i, 52)))).toBe(false);
    expect(judge.probe(1, [])).toMatchObject({ decision: "not_judged", perStreamP50LowerTokensPerSecond: null });
  });

  it("a level that must bound TTFT p95 has a look where that first can meet (its ramp and 63 TTFTs at 0.95) and one where it can with one failed (137)", () => {
    const bounded = drawPlan(plan, 5, { ttftBound: true });
    expect(bounded.meetLook).toBe(10 + 63);
    expect(bounded.retryLook).toBe(10 + 137);
    expect(looksOf(bounded)).toEqual([20, 40, 64, 73, 128, 147, 192, 256]);
    expect(drawPlan(plan, 5, { ttftBound: false }).meetLook).toBeUndefined();
  });
});

describe("a look reads sends in the order sent", () => {
  it("a send still in flight holds the look back, though later sends have ended: the slow ones are not left out", () => {
    const judge = new ProbeJudge(SPEED_ONLY, 0.95, PLAN);
    // Send 0 is slow (80 ms a token, 12.5 tok/s) and still in flight; 1..16 ended fast (50 tok/s). Read
    // as the first 16 to end, they would be met at this look.
    const fast = Array.from({ length: 16 }, (_, i) => result(i + 1, 20));
    expect(judge.judge(fast)).toBe(false);
    // Once it ends, the look at 16 reads sends 0..15 (not 1..16): one slow of 8 leaves the groups' medians fast.
    expect(judge.judge([...fast, result(0, 80)])).toBe(true);
    expect(judge.probe(1, [])).toMatchObject({ decision: "meets", requests: 16 });
  });

  it("a failed request counts as a miss: as 0 tok/s, and its TTFT as over any limit", () => {
    // Half of every group broken, the rest fast: the group medians fall to the broken ones' 0 tok/s.
    const judge = new ProbeJudge(SLO, 0.95, { ...PLAN, batch: 16 });
    const results = Array.from({ length: 16 }, (_, i) => result(i, 20, i % 2 === 0));
    expect(judge.judge(results)).toBe(true);
    expect(judge.probe(1, [])).toMatchObject({ decision: "misses", requests: 16, ttftP95UpperMs: null });
  });
});
