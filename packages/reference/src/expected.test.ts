/** @module Expected figures of the reference profiles from their parameters: TTFT grows with the scenario's prompt by the prefill cost. */
import { describe, expect, it } from "vitest";
import { expectedThroughput } from "./engine.ts";
import { expectedReaderFigures, expectedSaturationRequestsPerSecond } from "./expected.ts";
import {
  LARGE_SLOW,
  REFERENCE_OPEN_RATES,
  REFERENCE_RAG_SLO,
  REFERENCE_SLO,
  referenceModels,
  referenceTargets,
  SMALL_FAST,
} from "./profiles.ts";

/**
 * The demo's scenarios (packages/cli's DEMO_WORKLOAD and DEMO_SCENARIOS): chat, and rag over 2,000-token
 * prompts, here up to 16 streams (the demo sweeps rag at 1 and 4) to show where the small model queues.
 */
const CHAT = { concurrency: [1, 2, 4, 8, 16], promptTokens: 150, maxTokens: 24 };
const RAG = { concurrency: [1, 4, 16], promptTokens: 2000, maxTokens: 24 };

describe("expected figures per scenario", () => {
  it("TTFT is prefill base plus the per-token cost times the scenario's prompt", () => {
    const ttft = (profile: typeof SMALL_FAST, promptTokens: number) =>
      expectedThroughput(profile, { concurrency: 1, promptTokens, maxTokens: 24 }).ttftMs;
    // Small: 4 ms + 0.25 ms x tokens (4,000 prompt tokens/s); large: 10 ms + 0.4 ms x tokens (2,500/s).
    expect(ttft(SMALL_FAST, 150)).toBeCloseTo(41.5, 9);
    expect(ttft(SMALL_FAST, 2000)).toBeCloseTo(504, 9);
    expect(ttft(LARGE_SLOW, 150)).toBeCloseTo(70, 9);
    expect(ttft(LARGE_SLOW, 2000)).toBeCloseTo(810, 9);
  });

  it("the reader figures take the scenario's prompt: chat and rag of the small model", () => {
    const chat = expectedReaderFigures(SMALL_FAST, CHAT, REFERENCE_SLO);
    // Within the 4 slots: prefill 41.5 ms, then 23 steps of 2 + 0.25 x N ms.
    expect(chat.levels.map((l) => l.ttftMs)).toEqual([41.5, 41.5, 41.5, 152, 373].map((x) => expect.closeTo(x, 9)));
    expect(chat.levels[0]?.perStreamOutputTokensPerSecond).toBeCloseTo(24 / ((41.5 + 23 * 2.25) / 1000), 9);
    // At 8 streams a request waits a service (41.5 + 23 x 3 = 110.5 ms): 221 ms end to end, 109 tok/s < 120.
    expect(chat.capacity).toBe(4);
    const rag = expectedReaderFigures(SMALL_FAST, RAG, REFERENCE_RAG_SLO);
    expect(rag.levels.map((l) => l.ttftMs)).toEqual([504, 504, 2223].map((x) => expect.closeTo(x, 9)));
    expect(rag.levels[1]?.perStreamOutputTokensPerSecond).toBeCloseTo(24 / 0.573, 9);
    expect(rag.capacity).toBe(4);
  });

  it("the large model meets both SLOs at every level: rag TTFT 810 ms, 26 tok/s a user at 16 streams", () => {
    const rag = expectedReaderFigures(LARGE_SLOW, RAG, REFERENCE_RAG_SLO);
    expect(rag.levels.map((l) => l.ttftMs)).toEqual([810, 810, 810].map((x) => expect.closeTo(x, 9)));
    // 23 steps of 4 + 0.06 x 16 = 4.96 ms after 810 ms of prefill.
    expect(rag.levels[2]?.perStreamOutputTokensPerSecond).toBeCloseTo(24 / ((810 + 23 * 4.96) / 1000), 9);
    expect(rag.capacity).toBe(16);
    expect(expectedReaderFigures(LARGE_SLOW, CHAT, REFERENCE_SLO).capacity).toBe(16);
  });

  it("saturation: every slot full, prefill paid per request, so a longer prompt lowers it", () => {
    // 4 slots over a service of 41.5 + 23 x 3 = 110.5 ms (chat) and 504 + 69 = 573 ms (rag).
    expect(expectedSaturationRequestsPerSecond(SMALL_FAST, CHAT)).toBeCloseTo(4000 / 110.5, 9);
    expect(expectedSaturationRequestsPerSecond(SMALL_FAST, RAG)).toBeCloseTo(4000 / 573, 9);
    // 32 slots over 70 + 23 x (4 + 0.06 x 32) = 206.16 ms.
    expect(expectedSaturationRequestsPerSecond(LARGE_SLOW, CHAT)).toBeCloseTo(32000 / 206.16, 9);
  });
});

describe("the open-loop reference target", () => {
  it("sends Poisson arrivals to the small model, the top rate near its saturation at the chat workload", () => {
    const open = referenceTargets("http://127.0.0.1:1/v1").find((t) => t.id === "ref-small-open");
    expect(open?.model).toBe("ref-small-fast");
    expect(open?.workload).toMatchObject({ arrival: { mode: "poisson", ratesPerSecond: REFERENCE_OPEN_RATES } });
    expect(referenceModels().some((m) => m.id === open?.model)).toBe(true);
    const saturation = expectedSaturationRequestsPerSecond(SMALL_FAST, CHAT);
    const top = REFERENCE_OPEN_RATES.at(-1) as number;
    expect(top / saturation).toBeGreaterThan(0.85);
    expect(top / saturation).toBeLessThan(0.95);
  });

  it("every reference target is labelled simulated", () => {
    for (const t of referenceTargets("http://127.0.0.1:1/v1")) expect(t.label).toMatch(/\(simulated\)$/);
  });
});
