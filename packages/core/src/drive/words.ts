/** @module How numbers read in kneeboard's words: grouped thousands, a fixed number of decimals. */

/** A share (0..1) as a percentage with one decimal, `50.9 %`; `-` for none. */
export const percent = (share: number | null) => (share === null ? "-" : `${(share * 100).toFixed(1)} %`);

/** `n` with thousands grouped and exactly `digits` decimals: `12,345.6`. */
export const number = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
