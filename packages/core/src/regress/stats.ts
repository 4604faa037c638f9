/** @module Robust statistics for detection: median, MAD and the level of a window of values. */
import type { SeriesLevel } from "../alerts/index.ts";

/** The median of values (mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The arithmetic mean; NaN when empty. */
export function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Median absolute deviation from the median (same unit as the values). */
export function mad(values: readonly number[]): number {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m)));
}

/** 1.4826 x MAD estimates the standard deviation of normal noise. */
export const MAD_TO_SIGMA = 1.4826;

/**
 * The standard deviation of a window's noise, robustly: sqrt(pi/2) x the mean absolute deviation
 * from the median, over the values within 5 robust sigmas (1.4826 x MAD) of it. MAD alone needs
 * about 2.5 times as many runs for the same precision (37 % against 88 % efficiency on normal noise),
 * and an underestimated noise is what raises false alarms; the MAD cut keeps outliers out.
 */
export function noiseSigma(values: readonly number[]): number {
  const m = median(values);
  const cut = 5 * MAD_TO_SIGMA * mad(values);
  const kept = values.map((v) => Math.abs(v - m)).filter((d) => d <= cut);
  return kept.length ? Math.sqrt(Math.PI / 2) * mean(kept) : 0;
}

/** Median and MAD of a window, as alerts report a level. */
export function levelOf(values: readonly number[]): SeriesLevel {
  return { median: median(values), spread: mad(values), runs: values.length };
}
