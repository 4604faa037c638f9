/**
 * @module A probed level's SLO decision at a stated confidence (docs/methodology.md#searched-levels),
 * pure: distribution-free confidence bounds on a quantile from order statistics, and the decision a
 * level's samples allow at one look, `meets`, `misses`, or draw more (`undecided` at the cap).
 */

/** P(Bin(n, p) <= k): the binomial distribution function, summed in log space so large n does not underflow its terms. */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  let logPmf = n * Math.log1p(-p);
  const ratio = Math.log(p) - Math.log1p(-p);
  let sum = Math.exp(logPmf);
  for (let i = 0; i < k; i++) {
    logPmf += Math.log(n - i) - Math.log(i + 1) + ratio;
    sum += Math.exp(logPmf);
  }
  return Math.min(1, sum);
}

/**
 * The 1-based rank of the order statistic that bounds the `quantile` from above at `confidence`: the
 * smallest k with P(X(k) >= the quantile) = P(Bin(n, quantile) <= k - 1) >= confidence, whatever the
 * (continuous) distribution; null when even the largest of n does not (too few samples).
 */
export function upperBoundRank(n: number, quantile: number, confidence: number): number | null {
  return memo(`u${n},${quantile},${confidence}`, () => {
    const cdf = binomialCdfs(n, quantile);
    for (let k = 1; k <= n; k++) if ((cdf[k - 1] as number) >= confidence) return k;
    return null;
  });
}

/**
 * The 1-based rank of the order statistic that bounds the `quantile` from below at `confidence`: the
 * largest k with P(X(k) <= the quantile) = P(Bin(n, quantile) >= k) >= confidence; null when even
 * the smallest of n does not.
 */
export function lowerBoundRank(n: number, quantile: number, confidence: number): number | null {
  return memo(`l${n},${quantile},${confidence}`, () => {
    const cdf = binomialCdfs(n, quantile);
    for (let k = n; k >= 1; k--) if (1 - (cdf[k - 1] as number) >= confidence) return k;
    return null;
  });
}

/** P(Bin(n, p) <= j) for j = 0 .. n - 1 in one pass, in log space like `binomialCdf`. */
function binomialCdfs(n: number, p: number): number[] {
  const out: number[] = [];
  let logPmf = n * Math.log1p(-p);
  const ratio = Math.log(p) - Math.log1p(-p);
  let sum = 0;
  for (let j = 0; j < n; j++) {
    if (j > 0) logPmf += Math.log(n - j + 1) - Math.log(j) + ratio;
    sum += Math.exp(logPmf);
    out.push(Math.min(1, sum));
  }
  return out;
}

/** Ranks by (side, n, quantile, confidence): a search asks for the same few again and again. */
const RANKS = new Map<string, number | null>();
function memo(key: string, compute: () => number | null): number | null {
  if (!RANKS.has(key)) RANKS.set(key, compute());
  return RANKS.get(key) as number | null;
}

/** An upper confidence bound on the `quantile` of what `values` were drawn from; null with too few. */
export function quantileUpperBound(values: readonly number[], quantile: number, confidence: number): number | null {
  const k = upperBoundRank(values.length, quantile, confidence);
  return k === null ? null : (sortedCopy(values)[k - 1] ?? null);
}

/** A lower confidence bound on the `quantile` of what `values` were drawn from; null with too few. */
export function quantileLowerBound(values: readonly number[], quantile: number, confidence: number): number | null {
  const k = lowerBoundRank(values.length, quantile, confidence);
  return k === null ? null : (sortedCopy(values)[k - 1] ?? null);
}

function sortedCopy(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The TTFT quantile the SLO bounds (p95) and the per-stream quantile it asks for (p50). */
export const TTFT_QUANTILE = 0.95;
export const PER_STREAM_QUANTILE = 0.5;

/** Share of a level's allowance for a wrong `meets` spent at its first look that can say `meets`; the rest is split evenly over the later looks. */
export const FIRST_LOOK_SHARE = 0.8;

/** What one user needs: the SLO a decision judges. */
export interface DecisionSlo {
  minOutputTokensPerSecond: number;
  /** null: no TTFT SLO, only a per-stream one (a `meets` then needs no bound on TTFT p95). */
  maxTtftMs: number | null;
}

/** The confidences of one look: of a `meets` (both bounds inside the SLO) and of a `misses` (either opposite bound outside). */
export interface LookConfidences {
  meets: number;
  misses: number;
}

/** A level's SLO decision at one look: `pending` means draw more (at the last look it is `undecided`). */
export interface LookDecision {
  decision: "meets" | "misses" | "pending";
  /** Upper confidence bound on TTFT p95, ms; null with too few ok requests. */
  ttftP95UpperMs: number | null;
  /** Lower confidence bound on per-stream output tok/s p50; null with too few ok requests. */
  perStreamP50LowerTokensPerSecond: number | null;
}

/**
 * The decision a level's ok requests allow at one look: `meets` when the upper bound on TTFT p95 (at
 * `confidence.meets`) is within `maxTtftMs` and the lower bound on per-stream p50 reaches
 * `minOutputTokensPerSecond` (a level that truly misses on either passes that bound with probability
 * at most 1 - confidence.meets); `misses` when the lower bound on TTFT p95 is over `maxTtftMs` or the
 * upper bound on per-stream p50 under the minimum, each at half of 1 - confidence.misses (a level that
 * truly meets is called missing with probability at most 1 - confidence.misses); else `pending`.
 */
export function decideLook(
  ttftMs: readonly number[],
  perStreamTokensPerSecond: readonly number[],
  slo: DecisionSlo,
  confidence: LookConfidences,
): LookDecision {
  const ttftP95UpperMs = quantileUpperBound(ttftMs, TTFT_QUANTILE, confidence.meets);
  const perStreamP50LowerTokensPerSecond = quantileLowerBound(
    perStreamTokensPerSecond,
    PER_STREAM_QUANTILE,
    confidence.meets,
  );
  const bounds = { ttftP95UpperMs, perStreamP50LowerTokensPerSecond };
  const maxTtftMs = slo.maxTtftMs;
  const ttftMet = maxTtftMs === null || (ttftP95UpperMs !== null && ttftP95UpperMs <= maxTtftMs);
  if (
    ttftMet &&
    perStreamP50LowerTokensPerSecond !== null &&
    perStreamP50LowerTokensPerSecond >= slo.minOutputTokensPerSecond
  )
    return { decision: "meets", ...bounds };
  const half = 1 - (1 - confidence.misses) / 2;
  const ttftLower = maxTtftMs === null ? null : quantileLowerBound(ttftMs, TTFT_QUANTILE, half);
  const perStreamUpper = quantileUpperBound(perStreamTokensPerSecond, PER_STREAM_QUANTILE, half);
  if (
    (ttftLower !== null && maxTtftMs !== null && ttftLower > maxTtftMs) ||
    (perStreamUpper !== null && perStreamUpper < slo.minOutputTokensPerSecond)
  )
    return { decision: "misses", ...bounds };
  return { decision: "pending", ...bounds };
}

/**
 * How a probed level draws its requests: looked at first after `minimum` (`minimumRequests`), then at
 * each doubling of it below `batch`, then every `batch` (`requestsPerLevel`) up to `cap`. A level far
 * from the SLO is decided at an early look; one near it draws on, up to the cap.
 */
export interface DrawPlan {
  batch: number;
  cap: number;
  minimum: number;
}

/** The requests drawn at each look, ascending, the last at the cap. */
export function looksOf(plan: DrawPlan): number[] {
  const looks = new Set<number>();
  for (let n = Math.max(1, plan.minimum); n < plan.batch && n < plan.cap; n *= 2) looks.add(n);
  for (let n = plan.batch; n < plan.cap; n += plan.batch) if (n >= plan.minimum) looks.add(n);
  looks.add(plan.cap);
  return [...looks].sort((a, b) => a - b);
}

/**
 * The confidences of each look (`looksOf`), so that all of a level's looks together call a level that
 * misses `meets` with probability at most 1 - `confidence`, and one that meets `misses` likewise (a
 * union bound with weights fixed before any sample). A `meets` needs a lower bound on per-stream p50
 * and, with a TTFT SLO (`ttft`), an upper bound on TTFT p95, which n requests give only when 0.95^n is
 * at most its allowance: the first look with enough requests for both at `FIRST_LOOK_SHARE` of the
 * allowance gets that share, the later looks the rest in equal parts, the earlier looks none (they can
 * only miss). A `misses` gets the allowance in equal parts at every look.
 */
export function lookConfidences(confidence: number, looks: readonly number[], ttft = true): LookConfidences[] {
  const alpha = 1 - confidence;
  const first = looks.findIndex((n) => canMeet(n, 1 - alpha * FIRST_LOOK_SHARE, ttft));
  const later = first < 0 ? 0 : looks.length - 1 - first;
  return looks.map((_, i) => ({
    meets:
      first < 0 || i < first
        ? 1
        : later === 0
          ? confidence
          : i === first
            ? 1 - alpha * FIRST_LOOK_SHARE
            : 1 - (alpha * (1 - FIRST_LOOK_SHARE)) / later,
    misses: 1 - alpha / looks.length,
  }));
}

/**
 * The decision after `drawn` measured requests (at the look they reach; between looks, the look
 * before), with its bounds: at the cap a `pending` decision is `undecided`.
 */
export function decideLevel(
  ttftMs: readonly number[],
  perStreamTokensPerSecond: readonly number[],
  slo: DecisionSlo,
  confidence: number,
  drawn: number,
  plan: DrawPlan,
): Omit<LookDecision, "decision"> & { decision: "meets" | "misses" | "pending" | "undecided" } {
  const looks = looksOf(plan);
  const at = looks.filter((n) => n <= drawn).length - 1;
  if (at < 0) return { decision: "pending", ttftP95UpperMs: null, perStreamP50LowerTokensPerSecond: null };
  const result = decideLook(
    ttftMs,
    perStreamTokensPerSecond,
    slo,
    lookConfidences(confidence, looks, slo.maxTtftMs !== null)[at] as LookConfidences,
  );
  return result.decision === "pending" && drawn >= plan.cap ? { ...result, decision: "undecided" } : result;
}

/** True when n requests can bound what a `meets` needs at `level`: TTFT p95 from above (when the SLO has one) and per-stream p50 from below. */
function canMeet(n: number, level: number, ttft: boolean): boolean {
  const perStream = lowerBoundRank(n, PER_STREAM_QUANTILE, level) !== null;
  return perStream && (!ttft || upperBoundRank(n, TTFT_QUANTILE, level) !== null);
}

/**
 * The fewest measured requests a probed level draws before its first look: enough for a `meets` to be
 * possible at the first look's confidence on per-stream p50 alone (n with 0.5^n <= 1 - (1 - confidence)
 * x FIRST_LOOK_SHARE: 5 at 0.95), and for a closed loop 2N, so every user finished a request and
 * sent another. With a TTFT SLO a `meets` waits for the look that can bound TTFT p95 (63 at 0.95); a
 * `misses` far below the SLO can come at this first look.
 */
export function minimumRequests(confidence: number, users: number | null): number {
  const level = 1 - (1 - confidence) * FIRST_LOOK_SHARE;
  let n = 1;
  while (lowerBoundRank(n, PER_STREAM_QUANTILE, level) === null) n++;
  return Math.max(n, 2 * (users ?? 0));
}
