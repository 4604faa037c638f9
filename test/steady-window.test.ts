/**
 * @module The steady window as a level's headline aggregate (docs/methodology.md#the-steady-window): a
 * level of 4 rounds at N = 16 on the batch decoder of known throughput (16 slots, a step of 20 + 4 x
 * active ms: 16 x 1000 / 84 = 190.5 tok/s with all 16 in flight), in a manual scheduler's time so the
 * figures are exact. The headline reads the steady window; the whole level's figure, ramp and drain
 * included, reads lower, by the share this test prints.
 */
import { KNOWN_CAPACITY_ROUTE } from "@kneeboard/test-support/batch-decoder";
import { describe, expect, it } from "vitest";
import { inMemory } from "./search-harness.ts";

const N = 16;
const STEADY = (N * 1000) / (KNOWN_CAPACITY_ROUTE.stepBaseMs + KNOWN_CAPACITY_ROUTE.stepPerSeqMs * N);

describe("the steady window", () => {
  it("4 rounds at N = 16: the headline aggregate is within 2 % of the route's steady throughput; the whole level's reads lower", async () => {
    const { doc, counts } = await inMemory(
      1,
      { concurrency: [1, N], requestsPerLevel: 4 * N, warmupRequests: 0 },
      { ...KNOWN_CAPACITY_ROUTE, faultEvery: 0 },
    );
    expect(counts.completed).toBe(4 * N + 4 * N);
    const level = doc.levels.find((l) => l.load.kind === "closed" && l.load.concurrency === N);
    expect(level?.aggregateWindow).toEqual({ window: "steady", reason: null, minimumCompletions: N });
    expect(level?.steadyCompletions as number).toBeGreaterThanOrEqual(N);
    const headline = level?.headlineAggregateOutputTokensPerSecond as number;
    const whole = level?.aggregateOutputTokensPerSecond as number;
    expect(Math.abs(headline / STEADY - 1)).toBeLessThan(0.02);
    // The whole level's figure carries the ramp (the first N sends spread over a request's time) and the drain.
    expect(whole).toBeLessThan(headline);
    // The run's peak reads the headline, marked steady.
    expect(doc.summary.peak).toMatchObject({ aggregateOutputTokensPerSecond: headline, window: "steady" });
    console.log(
      `N = ${N}, 4 rounds: steady ${STEADY.toFixed(1)} tok/s by the route's formula; headline ${headline.toFixed(1)} (${(((headline - STEADY) / STEADY) * 100).toFixed(2)} %); whole level ${whole.toFixed(1)}, ${(((headline - whole) / headline) * 100).toFixed(1)} % under the headline; ${level?.steadyCompletions} completions in the window`,
    );
  }, 120_000);

  it("a level too short for one (N = 16, 16 requests: one round) says so, and its whole-level figure is the marked headline", async () => {
    const { doc } = await inMemory(
      2,
      { concurrency: [1, N], requestsPerLevel: N + 1, warmupRequests: 0 },
      { ...KNOWN_CAPACITY_ROUTE, faultEvery: 0 },
    );
    const level = doc.levels.find((l) => l.load.kind === "closed" && l.load.concurrency === N);
    expect(level?.aggregateWindow).toMatchObject({ window: "whole_level", minimumCompletions: N });
    expect(level?.aggregateWindow?.reason).toMatch(/too_few_completions|no_steady_window/);
    expect(level?.headlineAggregateOutputTokensPerSecond).toBe(level?.aggregateOutputTokensPerSecond);
    expect(doc.summary.peak?.window).toBe("whole_level");
  }, 120_000);
});
