/** @module How numbers read in kneeboard's words: grouped thousands, a fixed number of decimals. */

/** `n` with thousands grouped and exactly `digits` decimals: `12,345.6`. */
export const number = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
