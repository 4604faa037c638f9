/**
 * @module A figure over runs (docs/methodology.md): the median with a distribution-free
 * interval from order statistics, and the value given most often. What the standing and the kinds'
 * standing figures (`LoadKind.index`) take over runs; pure.
 */
import { z } from "zod";

/** The confidence the median's interval aims for (a share, 0..1). */
export const MEDIAN_CONFIDENCE = 0.95;

/** A figure over runs: the median and the interval [low, high] that bounds it, from n runs. */
export const Estimate = z.object({
  median: z.number(),
  low: z.number(),
  high: z.number(),
  /** Runs whose value entered. */
  n: z.number().int().positive(),
});
export type Estimate = z.infer<typeof Estimate>;

/** The median of values sorted ascending (the mean of the two middle ones when n is even). */
export function medianOfSorted(sorted: readonly number[]): number {
  const n = sorted.length;
  const mid = n >> 1;
  return n % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * P(x_(k) <= median <= x_(n-k+1)) for n independent draws from any continuous distribution: each
 * draw falls below the median with probability 1/2, so the interval misses it when k-1 or fewer (or
 * as many above) fall below: 1 - 2 P(Binomial(n, 1/2) <= k-1). Summed in log space so large n do not underflow.
 */
export function orderStatisticCoverage(n: number, k: number): number {
  if (k < 1 || 2 * k > n + 1) return 0;
  let logPmf = -n * Math.LN2;
  let tail = 0;
  for (let i = 0; i <= k - 1; i++) {
    tail += Math.exp(logPmf);
    logPmf += Math.log((n - i) / (i + 1));
  }
  return Math.max(0, 1 - 2 * tail);
}

const rankCache = new Map<number, number>();

/**
 * The largest k whose interval [x_(k), x_(n-k+1)] covers the median with at least `MEDIAN_CONFIDENCE`;
 * 1 (the range) when even the range does not (n < 6: its coverage is 1 - 2^(1-n), 75 % at n = 3).
 */
export function medianIntervalRank(n: number): number {
  const cached = rankCache.get(n);
  if (cached !== undefined) return cached;
  let k = 1;
  while (2 * (k + 1) <= n + 1 && orderStatisticCoverage(n, k + 1) >= MEDIAN_CONFIDENCE) k++;
  rankCache.set(n, k);
  return k;
}

/** The median of values and its order-statistic interval; null when there are none. */
export function estimate(values: readonly number[]): Estimate | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return null;
  const k = medianIntervalRank(n);
  return { median: medianOfSorted(sorted), low: sorted[k - 1] as number, high: sorted[n - k] as number, n };
}

export /** The value given most often, newest first (a tie goes to the one met first); null for none. */
function mostGiven<T>(newestFirst: readonly T[]): T | null {
  const counts = new Map<T, number>();
  for (const v of newestFirst) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: T | null = null;
  for (const [v, n] of counts) if (best === null || n > (counts.get(best) ?? 0)) best = v;
  return best;
}
