/** @module Tests of distributions on hand-made values with exact expected percentiles. */
import { describe, expect, it } from "vitest";
import { distribution } from "./distribution.ts";

describe("distribution", () => {
  it("is all null but n for no values", () => {
    expect(distribution([])).toEqual({
      n: 0,
      mean: null,
      min: null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      max: null,
    });
  });

  it("gives the one value everywhere for n = 1", () => {
    expect(distribution([7])).toEqual({
      n: 1,
      mean: 7,
      min: 7,
      p50: 7,
      p90: 7,
      p95: 7,
      p99: 7,
      max: 7,
    });
  });

  it("interpolates between the two values for n = 2", () => {
    const d = distribution([20, 10]);
    expect(d.n).toBe(2);
    expect(d.mean).toBe(15);
    expect(d.min).toBe(10);
    expect(d.max).toBe(20);
    expect(d.p50).toBe(15);
    expect(d.p90).toBeCloseTo(19, 12);
    expect(d.p95).toBeCloseTo(19.5, 12);
    expect(d.p99).toBeCloseTo(19.9, 12);
  });

  it("uses rank (n - 1) p for n = 100, regardless of input order", () => {
    const input = Array.from({ length: 100 }, (_, i) => 100 - i);
    const d = distribution(input);
    expect(d.mean).toBe(50.5);
    expect(d.min).toBe(1);
    expect(d.max).toBe(100);
    expect(d.p50).toBeCloseTo(50.5, 12);
    expect(d.p90).toBeCloseTo(90.1, 12);
    expect(d.p95).toBeCloseTo(95.05, 12);
    expect(d.p99).toBeCloseTo(99.01, 12);
    expect(input[0]).toBe(100);
  });
});
