import { describe, expect, it } from "vitest";
import { erfc, holm, normalUpperTail, oneSidedTwoProportionPValue } from "./index.ts";

describe("the normal tail", () => {
  it("matches known quantiles and keeps its relative accuracy far in the tail", () => {
    expect(normalUpperTail(1.959964)).toBeCloseTo(0.025, 6);
    expect(normalUpperTail(2.326348)).toBeCloseTo(0.01, 6);
    expect(normalUpperTail(-1)).toBeCloseTo(0.8413447460685429, 6);
    // P(Z >= 8) = 6.2210e-16 (Python's math.erfc): relative error under 1e-6.
    expect(Math.abs(normalUpperTail(8) / 6.220960574271819e-16 - 1)).toBeLessThan(1e-6);
    expect(erfc(0)).toBeCloseTo(1, 7);
  });
});

describe("the one-sided two-proportion z-test", () => {
  it("gives the pooled test's p-value (50/64 against 64/64: z = 3.9648)", () => {
    const p = oneSidedTwoProportionPValue({ successes: 50, trials: 64 }, { successes: 64, trials: 64 });
    expect(Math.abs(p / 3.673537298789073e-5 - 1)).toBeLessThan(1e-5);
    expect(oneSidedTwoProportionPValue({ successes: 60, trials: 64 }, { successes: 62, trials: 64 })).toBeCloseTo(
      0.20148368482533546,
      6,
    );
  });

  it("is one-sided: a route above its reference has a p-value above one half", () => {
    expect(oneSidedTwoProportionPValue({ successes: 64, trials: 64 }, { successes: 50, trials: 64 })).toBeGreaterThan(
      0.99,
    );
  });

  it("says 1 when both sides are all successes or all failures, and refuses a side with no trials", () => {
    expect(oneSidedTwoProportionPValue({ successes: 64, trials: 64 }, { successes: 40, trials: 40 })).toBe(1);
    expect(oneSidedTwoProportionPValue({ successes: 0, trials: 64 }, { successes: 0, trials: 40 })).toBe(1);
    expect(() => oneSidedTwoProportionPValue({ successes: 0, trials: 0 }, { successes: 1, trials: 2 })).toThrow(
      RangeError,
    );
  });
});

describe("Holm's correction", () => {
  it("multiplies the k-th smallest by (m - k + 1), keeps the order monotone and caps at 1", () => {
    expect(holm([0.01, 0.04, 0.03, 0.5])).toEqual([0.04, 0.09, 0.09, 0.5]);
    expect(holm([0.6, 0.6])).toEqual([1, 1]);
  });
});
