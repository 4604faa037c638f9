/** @module Each load kind's axis, place, words and sameness: closed, open (Poisson and gamma) and trace replay. */
import { describe, expect, it } from "vitest";
import { Load, loadAxis, loadPosition, loadWords, sameLoad } from "./index.ts";

const closed: Load = { kind: "closed", concurrency: 8 };
const poisson: Load = { kind: "open", arrival: "poisson", ratePerSecond: 4 };
const gamma: Load = { kind: "open", arrival: "gamma", ratePerSecond: 4, burstiness: 0.25 };
const trace: Load = { kind: "trace", speedup: 2 };

describe("a load", () => {
  it("has its kind's axis, place and words", () => {
    expect([closed, poisson, gamma, trace].map((l) => [loadAxis(l), loadPosition(l), loadWords(l)])).toEqual([
      ["concurrency", 8, "N=8"],
      ["rate", 4, "4 req/s"],
      ["rate", 4, "4 req/s, burstiness 0.25"],
      ["speedup", 2, "trace x2"],
    ]);
  });

  it("is the same as another of its kind at its place with the same arrivals only", () => {
    expect(sameLoad(gamma, { ...gamma })).toBe(true);
    expect(sameLoad(gamma, poisson)).toBe(false);
    expect(sameLoad(gamma, { ...gamma, burstiness: 0.5 })).toBe(false);
    expect(sameLoad(trace, { kind: "trace", speedup: 2 })).toBe(true);
    expect(sameLoad(trace, { kind: "trace", speedup: 4 })).toBe(false);
  });

  it("parses in a run document's shape, and a kind it does not know is refused", () => {
    expect(Load.parse(gamma)).toEqual(gamma);
    expect(Load.parse(trace)).toEqual(trace);
    expect(Load.safeParse({ kind: "conversation", turns: 3 }).success).toBe(false);
  });
});
