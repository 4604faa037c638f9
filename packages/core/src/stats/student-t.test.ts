/** @module Student's t against published critical values and the closed forms of 1 and 2 degrees of freedom. */
import { describe, expect, it } from "vitest";
import { studentTCdf, studentTQuantile } from "./student-t.ts";

describe("Student's t", () => {
  it("gives the table's one-sided critical values", () => {
    // Standard tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2), to their three decimals.
    const table: [number, number, number][] = [
      [0.975, 1, 12.706],
      [0.95, 1, 6.314],
      [0.95, 4, 2.132],
      [0.975, 10, 2.228],
      [0.99, 20, 2.528],
      [0.995, 3, 5.841],
      [0.95, 100, 1.66],
    ];
    for (const [p, df, t] of table) expect(studentTQuantile(p, df)).toBeCloseTo(t, 2);
  });

  it("matches the closed forms of 1 (Cauchy) and 2 degrees of freedom", () => {
    for (const t of [-3, -0.5, 0, 0.7, 2, 40]) {
      expect(studentTCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 10);
      expect(studentTCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 10);
    }
  });

  it("inverts its distribution function", () => {
    for (const df of [1, 2, 5, 30])
      for (const p of [0.6, 0.9, 0.99, 0.9995]) expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 9);
  });
});
