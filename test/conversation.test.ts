/**
 * @module Four-turn conversations over real HTTP against reference servers that differ only in a
 * prefix cache: every turn is present, a cache's later turns report more cached tokens than turn 1,
 * turn 4's prompt as the server received it holds the conversation so far, and a route whose prefill
 * grows with the prompt is seen without a cache. Counts and ratios only.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import type { Level, RunDocument } from "@kneeboard/core/run";
import { indexEntryFor } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { runSweep } from "@kneeboard/core/sweep";
import { type ReferenceServer, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { clientFlagProblems, reasonsBesidesClient } from "@kneeboard/test-support/accuracy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Prefill sets TTFT here (2 ms a prompt token), so a turn's TTFT follows what it prefills, not the machine's noise. */
const BASE: StreamProfile = { stepBaseMs: 2, stepPerSeqMs: 0.2, slots: 8, prefillBaseMs: 2, prefillPerTokenMs: 2 };
/** Token-sized blocks: what a later turn prefills is exactly the last answer and the new question. */
const CACHE = { blockTokens: 1 };

const ANSWER_TOKENS = 16;
const WORKLOAD = {
  concurrency: [2],
  promptTokens: 50,
  maxTokens: ANSWER_TOKENS,
  ignoreEos: true,
  // 2 users sharing 16 turns (about 8 each: 4 conversations of 4 turns, 3 samples a turn at least).
  requestsPerLevel: 16,
  warmupRequests: 1,
  conversation: { turns: 4, sharedPrefixTokens: 100 },
};

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({
    recordPrompts: true,
    models: [
      { kind: "model", id: "cached", profile: { ...BASE, prefixCache: CACHE } },
      { kind: "model", id: "uncached", profile: BASE },
      { kind: "model", id: "unreported", profile: { ...BASE, prefixCache: { ...CACHE, report: false } } },
    ],
  });
});
afterAll(() => server.close());

async function sweep(model: string): Promise<{ doc: RunDocument; level: Level }> {
  const config = parseConfig(
    JSON.stringify({
      targets: [{ id: model, label: model, baseURL: server.url, model, route: { gateway: "direct" } }],
      workload: WORKLOAD,
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  const doc = await runSweep({ target, workload: workloadFor(config, target) });
  return { doc, level: doc.levels[0] as Level };
}

const turnsOf = (doc: RunDocument) => doc.samples.map((s) => s.turn);
const count = (xs: unknown[], x: unknown) => xs.filter((y) => y === x).length;

describe("conversations against a server with a prefix cache", () => {
  let doc: RunDocument;
  let level: Level;
  beforeAll(async () => {
    ({ doc, level } = await sweep("cached"));
  });

  it("sends turns 1 to 4, each at least 3 times, every one answered", () => {
    expect(doc.samples).toHaveLength(16);
    const counts = [1, 2, 3, 4].map((t) => count(turnsOf(doc), t));
    for (const n of counts) expect(n).toBeGreaterThanOrEqual(3);
    expect(counts.reduce((a, b) => a + b)).toBe(16);
    expect(level.requests.ok).toBe(16);
    expect(level.conversation?.byTurn.map((t) => [t.turn, t.n])).toEqual(counts.map((n, i) => [i + 1, n]));
  });

  it("reports more cached tokens at every later turn than at any turn 1, and says the cache is reported", () => {
    const cached = (turn: number) =>
      doc.samples.filter((s) => s.turn === turn).map((s) => s.cachedPromptTokens as number);
    expect(doc.samples.every((s) => typeof s.cachedPromptTokens === "number")).toBe(true);
    for (const turn of [2, 3, 4]) expect(Math.min(...cached(turn))).toBeGreaterThan(Math.max(...cached(1)));
    const shares = level.conversation?.byTurn.map((t) => t.cachedPromptTokenShare as number) ?? [];
    expect(shares[3]).toBeGreaterThan(shares[0] as number);
    expect(level.conversation?.cache.verdict).toBe("reported");
    // A conversation's cache is its measure, not a flaw of the level.
    expect(level.invalid.map((r) => r.code)).not.toContain("cached_prompt");
  });

  it("sends turn 4 with the conversation so far: system prompt, three questions each with the answer received, the new question", () => {
    const received = server.requests.filter((r) => r.model === "cached");
    const fourth = received.filter((r) => / turn 4 at level /.test(r.messages.at(-1)?.content ?? ""));
    expect(fourth).toHaveLength(count(turnsOf(doc), 4));
    for (const request of fourth) {
      const { messages } = request;
      expect(messages.map((m) => m.role)).toEqual([
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
      ]);
      // One conversation's questions, turns 1 to 4 in order, and the answers the server streamed.
      const questions = messages.filter((m) => m.role === "user").map((m) => m.content);
      const conversation = questions[0]?.split(" ")[0];
      expect(questions.map((q) => q.split(" ").slice(0, 3).join(" "))).toEqual(
        [1, 2, 3, 4].map((t) => `${conversation} turn ${t}`),
      );
      for (const m of messages.filter((m) => m.role === "assistant"))
        expect(m.content).toBe(" tok".repeat(ANSWER_TOKENS));
      // Each earlier turn, as the server received it, is the head of this one.
      const earlier = received.filter(
        (r) => r.messages.length < messages.length && r.messages.at(-1)?.content.startsWith(`${conversation} turn `),
      );
      expect(earlier).toHaveLength(3);
      for (const r of earlier) expect(messages.slice(0, r.messages.length)).toEqual(r.messages);
      // Counted at the server: the system prompt, four questions and three answers, about 100 + 4 x 50 + 3 x 16.
      const first = earlier.find((r) => r.messages.length === 2);
      expect(request.promptTokens).toBeGreaterThan(
        (first?.promptTokens ?? 0) + 3 * (ANSWER_TOKENS + 0.8 * WORKLOAD.promptTokens),
      );
      expect(request.cachedTokens).toBeGreaterThan(
        (request.promptTokens ?? 0) - ANSWER_TOKENS - WORKLOAD.promptTokens - 10,
      );
    }
  });

  it("indexes the level's figures by turn and verdict, and its later turns' TTFT enters the standing", () => {
    const entry = indexEntryFor("runs/cached/x.json", doc);
    const figures = entry.levels[0];
    expect(figures?.laterTurnsTtftP50Ms).toBe(level.conversation?.laterTurnsTtftMs.p50);
    expect(figures?.conversation?.cacheVerdict).toBe("reported");
    expect(figures?.conversation?.byTurn.map((t) => [t.turn, t.n, t.ttftP50Ms])).toEqual(
      level.conversation?.byTurn.map((t) => [t.turn, t.n, t.ttftMs.p50]),
    );
    const standing = standingOf("cached", [entry], { now: doc.finishedAt });
    // The standing takes valid levels only. A busy machine may flag this one's client: then it must be
    // flagged for a reason its figures bear out, and its figure stays out of the standing.
    if (level.valid) expect(standing.levels[0]?.laterTurnsTtftP50Ms?.median).toBe(figures?.laterTurnsTtftP50Ms);
    else {
      expect(reasonsBesidesClient(level)).toEqual([]);
      expect(clientFlagProblems(level)).toEqual([]);
      expect(standing.levels[0]?.laterTurnsTtftP50Ms ?? null).toBeNull();
    }
  });
});

describe("conversations against a server without a prompt cache, its prefill growing with the prompt", () => {
  it("reports no cached tokens, and the level says no prompt cache was seen", async () => {
    const { doc, level } = await sweep("uncached");
    for (const t of [1, 2, 3, 4]) expect(count(turnsOf(doc), t)).toBeGreaterThanOrEqual(3);
    expect(doc.samples.every((s) => s.cachedPromptTokens === null)).toBe(true);
    const cache = level.conversation?.cache;
    expect(cache).toMatchObject({ verdict: "no_cache_seen", fromTurn: 2, toTurn: 4 });
    expect(cache?.ttftRatio).toBeGreaterThanOrEqual(cache?.growthThreshold ?? Number.POSITIVE_INFINITY);
    expect(cache?.detail).toMatch(/^no prompt cache seen/);
  });
});

describe("conversations against a server whose prefix cache is not reported", () => {
  it("reports no cached tokens, and the level says the cache is not reported: TTFT stays flat", async () => {
    const { doc, level } = await sweep("unreported");
    expect(doc.samples.every((s) => s.cachedPromptTokens === null)).toBe(true);
    const cache = level.conversation?.cache;
    expect(cache).toMatchObject({ verdict: "not_reported", fromTurn: 2, toTurn: 4 });
    expect(cache?.promptRatio).toBeGreaterThan(1.4);
    expect(cache?.ttftRatio).toBeLessThan(cache?.growthThreshold ?? 0);
  });
});
