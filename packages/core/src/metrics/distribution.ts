/** @module Distributions of measured values: count, mean, min, max and percentiles (type 7); pure. */
import type { Distribution } from "../run/index.ts";

/**
 * Percentile `p` (0..1) of ascending `sorted` values by linear interpolation between closest ranks
 * (Hyndman-Fan type 7, as numpy's default and Excel's PERCENTILE.INC): rank h = (n - 1) p, then
 * x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]). Values may be +Infinity (a failed request in the
 * SLO's figures): a rank that falls on one, or between one and a finite value, gives +Infinity.
 */
export function percentile(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  // A failed request counts as +Infinity (the SLO's figures): on a rank, or weighed in, it gives +Infinity; 0 x Infinity is not 0 in floating point.
  if (h === lo || a === b) return a;
  return a + (h - lo) * (b - a);
}

/**
 * The distribution of `values` (in whatever unit they carry): count, mean, min, p50, p90, p95, p99, max.
 * Percentiles interpolate linearly between closest ranks (type 7, see `percentile`). Every figure but
 * `n` is null when there are no values. The input is not modified.
 */
export function distribution(values: number[]): Distribution {
  const n = values.length;
  if (n === 0)
    return {
      n: 0,
      mean: null,
      min: null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      max: null,
    };
  const sorted = [...values].sort((a, b) => a - b);
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n,
    mean: sum / n,
    min: sorted[0] as number,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted[n - 1] as number,
  };
}
