/**
 * @module Small pieces of frequentist testing the verdicts share: Holm's step-down correction, the
 * standard normal's upper tail, and the exact one-sided sign test. Pure.
 */

/** Holm's step-down adjusted p-values, in the input's order: each at most 1, never below a smaller raw one's. */
export function holm(pValues: readonly number[]): number[] {
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const adjusted = new Array<number>(pValues.length);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (pValues.length - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/**
 * The complementary error function, erfc(x), by the Chebyshev fit of Numerical Recipes (`erfcc`):
 * relative error below 1.2e-7 everywhere, so tail probabilities as small as 1e-12 keep their digits.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** P(Z >= z) for a standard normal Z. */
export function normalUpperTail(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/**
 * The exact one-sided sign test (exact McNemar) of paired successes: of the pairs where the two sides
 * differ, `lost` went one way (the first side met, the second did not) and `gained` the other; H0
 * says each differing pair goes either way with probability 1/2. The p-value is P(Bin(lost + gained,
 * 1/2) >= lost), summed in log space; 1 when no pair differs.
 */
export function exactSignTestPValue(lost: number, gained: number): number {
  const n = lost + gained;
  if (lost <= 0) return 1;
  let logChoose = 0; // log C(n, 0)
  let tail = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logChoose += Math.log((n - k + 1) / k);
    if (k >= lost) tail += Math.exp(logChoose - n * Math.LN2);
  }
  return Math.min(1, tail);
}
