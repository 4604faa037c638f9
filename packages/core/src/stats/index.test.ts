import { describe, expect, it } from "vitest";
import { erfc, exactSignTestPValue, holm, normalUpperTail } from "./index.ts";

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

describe("the exact one-sided sign test", () => {
  it("sums the binomial upper tail at one half: 10 lost, 0 gained is 2^-10; 8 lost, 2 gained is 56/1024", () => {
    expect(exactSignTestPValue(10, 0)).toBeCloseTo(2 ** -10, 15);
    // P(Bin(10, 1/2) >= 8) = (45 + 10 + 1) / 1024.
    expect(exactSignTestPValue(8, 2)).toBeCloseTo(56 / 1024, 15);
    // Symmetric at the middle, 1 when nothing was lost, and tiny tails keep their digits.
    expect(exactSignTestPValue(5, 5)).toBeCloseTo(638 / 1024, 15);
    expect(exactSignTestPValue(0, 7)).toBe(1);
    expect(exactSignTestPValue(0, 0)).toBe(1);
    expect(exactSignTestPValue(120, 0) / 2 ** -120).toBeCloseTo(1, 10);
  });
});

describe("Holm's correction", () => {
  it("multiplies the k-th smallest by (m - k + 1), keeps the order monotone and caps at 1", () => {
    expect(holm([0.01, 0.04, 0.03, 0.5])).toEqual([0.04, 0.09, 0.09, 0.5]);
    expect(holm([0.6, 0.6])).toEqual([1, 1]);
  });
});
