/**
 * @module A probed level's SLO decision at a stated confidence (docs/methodology.md#searched-levels),
 * pure: distribution-free bounds on TTFT p95 from order statistics, Student's t bounds on per-stream
 * p50 from the medians of groups of sends (requests in flight together are one draw), and the decision
 * a level's samples allow at one look, `meets`, `misses`, or draw more (`undecided` at the cap).
 */
import { studentTQuantile } from "../stats/student-t.ts";

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

/**
 * The fewest consecutive sends a per-stream bound judges as one group. Requests in flight together
 * share the server's decode steps, so their speeds move together (on a batching server the N streams
 * of one round can be identical): N of them are one draw, not N. A closed loop's group is its N users,
 * at least this; a level without N (an open loop) groups this many consecutive sends.
 */
export const MIN_GROUP = 5;

/** The size of a level's per-stream groups: its users (a closed loop's N), at least `MIN_GROUP`. */
export function groupSize(users: number | null): number {
  return Math.max(MIN_GROUP, users ?? 0);
}

/** The median of the values (null: a send with no value, left out); null with none. */
function median(values: readonly (number | null)[]): number | null {
  const sorted = sortedCopy(values.filter((v): v is number => v !== null));
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * The medians of consecutive groups of `size` sends, in order: null marks a send with no value (it
 * failed), left out of its group's median; a group with none, and a last partial group, are left out.
 */
export function groupMedians(values: readonly (number | null)[], size: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + size <= values.length; i += size) {
    const m = median(values.slice(i, i + size));
    if (m !== null) out.push(m);
  }
  return out;
}

/** A bound kept only where it is a number: a failed request's TTFT counts as +Infinity, and a bound on it says only "over any limit". */
function finiteOrNull(value: number | null): number | null {
  return value !== null && Number.isFinite(value) ? value : null;
}

/** A lower bound on a speed that is below zero says nothing a reader can use (the t bound of few, spread groups): kept as null. */
function meaningfulSpeed(value: number | null): number | null {
  return value !== null && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * A one-sided bound at `confidence` on the mean that `values` (independent, near normal: medians of
 * groups are) were drawn about: mean -/+ t(confidence, k - 1) x sd / sqrt(k), Student's t. Null with
 * fewer than two values.
 */
export function meanBound(values: readonly number[], confidence: number, side: "lower" | "upper"): number | null {
  const k = values.length;
  if (k < 2) return null;
  const mean = values.reduce((a, b) => a + b, 0) / k;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (k - 1));
  const half = (studentTQuantile(confidence, k - 1) * sd) / Math.sqrt(k);
  return side === "lower" ? mean - half : mean + half;
}

/** The TTFT quantile the SLO bounds (p95). */
export const TTFT_QUANTILE = 0.95;

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
  /** Lower confidence bound on per-stream output tok/s p50 (on its groups' medians); null with fewer than two groups. */
  perStreamP50LowerTokensPerSecond: number | null;
}

/**
 * The decision a level's ok requests allow at one look: `meets` when the upper bound on TTFT p95 (at
 * `confidence.meets`) is within `maxTtftMs` and the lower bound on per-stream p50 reaches
 * `minOutputTokensPerSecond` (a level that truly misses on either passes that bound with probability
 * at most 1 - confidence.meets); `misses` when the lower bound on TTFT p95 is over `maxTtftMs` or the
 * upper bound on per-stream p50 under the minimum, each at half of 1 - confidence.misses (a level that
 * truly meets is called missing with probability at most 1 - confidence.misses); else `pending`.
 * TTFT's bounds are order statistics of the requests; per-stream p50's are t bounds on the medians of
 * groups of `group` consecutive sends (`groupSize`), in the order sent.
 */
export function decideLook(
  ttftMs: readonly number[],
  perStreamTokensPerSecond: readonly (number | null)[],
  slo: DecisionSlo,
  confidence: LookConfidences,
  group: number,
  /** False: a `meets` needs no TTFT bound here (the search has TTFT's `meets` from a higher load); a TTFT `misses` still counts. */
  boundTtft = true,
): LookDecision {
  const groups = groupMedians(perStreamTokensPerSecond, group);
  const ttftP95UpperMs = finiteOrNull(quantileUpperBound(ttftMs, TTFT_QUANTILE, confidence.meets));
  // On the figure the page reports: never above the judged sends' own per-request p50.
  const t = meanBound(groups, confidence.meets, "lower");
  const p50 = median(perStreamTokensPerSecond.slice(0, groups.length * group));
  const perStreamP50LowerTokensPerSecond = meaningfulSpeed(t === null || p50 === null ? null : Math.min(t, p50));
  const bounds = { ttftP95UpperMs, perStreamP50LowerTokensPerSecond };
  const maxTtftMs = slo.maxTtftMs;
  const ttftMet = maxTtftMs === null || !boundTtft || (ttftP95UpperMs !== null && ttftP95UpperMs <= maxTtftMs);
  if (
    ttftMet &&
    perStreamP50LowerTokensPerSecond !== null &&
    perStreamP50LowerTokensPerSecond >= slo.minOutputTokensPerSecond
  )
    return { decision: "meets", ...bounds };
  // Either of two bounds can call a miss: each gets half the allowance, or all of it without a TTFT SLO.
  const half = maxTtftMs === null ? confidence.misses : 1 - (1 - confidence.misses) / 2;
  const ttftLower = maxTtftMs === null ? null : quantileLowerBound(ttftMs, TTFT_QUANTILE, half);
  const perStreamUpper = meanBound(groups, half, "upper");
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
  /** Consecutive sends judged as one group for per-stream p50 (`groupSize`). */
  group: number;
  /** The first sends, left out of the decision (`rampOf`). */
  ramp: number;
  /**
   * Whether a `meets` needs this level's own upper bound on TTFT p95 (`ttftBoundLook`): false without a
   * TTFT SLO, and where the search takes TTFT's `meets` from elsewhere (`LoadSearch.boundsTtft`); a
   * `misses` on TTFT is called either way. Absent: true.
   */
  ttftBound?: boolean;
  /** An extra look, where a `meets` with a TTFT bound first becomes possible (`ttftBoundLook`); absent: none. */
  meetLook?: number;
  /** An extra look, where that `meets` is possible with one failed request among the judged (`ttftRetryLook`); absent: none. */
  retryLook?: number;
}

/**
 * The fewest requests after which a level that must bound TTFT p95 can be called `meets`: its ramp and
 * the n whose largest TTFT bounds p95 at the first such look's confidence (0.95^n <= 0.8 x (1 -
 * confidence): 63 at 0.95), and two per-stream groups at least. A look is put there, so a level that
 * bounds TTFT draws no further than that needs.
 */
export function ttftBoundLook(confidence: number, group: number, ramp: number): number {
  const level = 1 - (1 - confidence) * FIRST_LOOK_SHARE;
  let n = 2 * group;
  while (upperBoundRank(n, TTFT_QUANTILE, level) === null) n++;
  return ramp + n;
}

/** The requests drawn at each look, ascending, the last at the cap. */
export function looksOf(plan: DrawPlan): number[] {
  // The minimum is always a look (one past a batch too: a closed loop's 4N at N = 32 is 128).
  const looks = new Set<number>([Math.min(Math.max(1, plan.minimum), plan.cap)]);
  for (const extra of [plan.meetLook, plan.retryLook]) if (extra !== undefined && extra < plan.cap) looks.add(extra);
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
 * only miss). A `misses` is spent the same way from the first look (which has two groups after the
 * ramp): a level far from the SLO is called there, on the fewest requests.
 */
export function lookConfidences(
  confidence: number,
  looks: readonly number[],
  { group, ramp, retryLook }: Pick<DrawPlan, "group" | "ramp" | "retryLook">,
  ttft = true,
): LookConfidences[] {
  const alpha = 1 - confidence;
  const first = looks.findIndex((n) => canMeet(n - ramp, 1 - alpha * FIRST_LOOK_SHARE, group, ttft));
  const meets = spend(confidence, looks.length, first);
  const retry = retryLook === undefined ? -1 : looks.indexOf(retryLook);
  if (ttft && first >= 0 && retry > first) {
    // The retry look takes `RETRY_LOOK_SHARE` of the allowance; the other later looks share what is left.
    const others = looks.length - 2 - first;
    for (let i = first + 1; i < looks.length; i++)
      meets[i] =
        i === retry
          ? 1 - alpha * (others === 0 ? 1 - FIRST_LOOK_SHARE : RETRY_LOOK_SHARE)
          : 1 - (alpha * (1 - FIRST_LOOK_SHARE - RETRY_LOOK_SHARE)) / others;
  }
  const misses = spend(confidence, looks.length, 0);
  return looks.map((_, i) => ({ meets: meets[i] as number, misses: misses[i] as number }));
}

/** Share of a level's allowance for a wrong `meets` at its retry look (`ttftRetryLook`), of the 1 - `FIRST_LOOK_SHARE` left after the first. */
export const RETRY_LOOK_SHARE = 0.15;

/**
 * The look where a level that must bound TTFT p95 can still meet after one of its judged requests
 * failed: a failure's TTFT counts as +Infinity, so the largest TTFT of the first look bounds nothing;
 * here the second largest bounds p95 at `RETRY_LOOK_SHARE` of the allowance (137 requests after the
 * ramp at 0.95). Without it the level would draw on to a later look whose share is too small for that
 * before 182.
 */
export function ttftRetryLook(confidence: number, ramp: number): number {
  const level = 1 - (1 - confidence) * RETRY_LOOK_SHARE;
  let n = 2;
  for (;;) {
    const k = upperBoundRank(n, TTFT_QUANTILE, level);
    if (k !== null && k <= n - 1) return ramp + n;
    n++;
  }
}

/** Each look's confidence when the allowance 1 - `confidence` is spent from look `first` on (none before; -1: none at all). */
function spend(confidence: number, looks: number, first: number): number[] {
  const alpha = 1 - confidence;
  const later = first < 0 ? 0 : looks - 1 - first;
  return Array.from({ length: looks }, (_, i) =>
    first < 0 || i < first
      ? 1
      : later === 0
        ? confidence
        : i === first
          ? 1 - alpha * FIRST_LOOK_SHARE
          : 1 - (alpha * (1 - FIRST_LOOK_SHARE)) / later,
  );
}

/**
 * The decision after `drawn` measured requests (at the look they reach; between looks, the look
 * before), with its bounds, on the requests after the plan's ramp, in the order sent (null where a
 * request failed): at the cap a `pending` decision is `undecided`.
 */
export function decideLevel(
  ttftMs: readonly (number | null)[],
  perStreamTokensPerSecond: readonly (number | null)[],
  slo: DecisionSlo,
  confidence: number,
  drawn: number,
  plan: DrawPlan,
): Omit<LookDecision, "decision"> & { decision: "meets" | "misses" | "pending" | "undecided" } {
  const looks = looksOf(plan);
  const at = looks.filter((n) => n <= drawn).length - 1;
  if (at < 0) return { decision: "pending", ttftP95UpperMs: null, perStreamP50LowerTokensPerSecond: null };
  const bound = slo.maxTtftMs !== null && plan.ttftBound !== false;
  const result = decideLook(
    ttftMs.slice(plan.ramp).filter((v): v is number => v !== null),
    perStreamTokensPerSecond.slice(plan.ramp),
    slo,
    lookConfidences(confidence, looks, plan, bound)[at] as LookConfidences,
    plan.group,
    bound,
  );
  return result.decision === "pending" && drawn >= plan.cap ? { ...result, decision: "undecided" } : result;
}

/** True when n requests can bound what a `meets` needs at `level`: TTFT p95 from above (when the SLO has one) and per-stream p50 from below (two groups). */
function canMeet(n: number, level: number, group: number, ttft: boolean): boolean {
  return n >= 2 * group && (!ttft || upperBoundRank(n, TTFT_QUANTILE, level) !== null);
}

/**
 * The fewest measured requests a probed level draws before its first look: its ramp (`rampOf`, a
 * closed loop's 2N, an open loop's 20) and two per-stream groups after it (`groupSize`), the fewest a t
 * bound needs: 30 without N, 4N for N of 5 or more. With a TTFT SLO a `meets` waits for the look that can bound TTFT p95 (63
 * at 0.95); a `misses` far below the SLO can come at this first look.
 */
export function minimumRequests(users: number | null): number {
  return rampOf(users) + 2 * groupSize(users);
}

/**
 * The sends a decision leaves out: a closed loop's first 2N. The first N are sent one after another as
 * its users start and the next N overlap them, so both run while the server fills (the first faster
 * than the rest): they are no draw of the load at N. A level without N (an open loop) leaves out its
 * first `OPEN_LOOP_RAMP` sends, while its queue builds.
 */
export function rampOf(users: number | null): number {
  return users === null ? OPEN_LOOP_RAMP : 2 * users;
}

/**
 * The sends an open-loop level's decision leaves out: its queue starts empty, and a rate above what the
 * route serves shows only once requests wait behind one another. 20 sends at an offered load of c
 * requests in flight (rate x mean service time) span 20 / c mean service times: 2 or more up to c = 10,
 * where a searched boundary usually lies on one server; a queue that grows without bound grows on past
 * them, and the looks after read it.
 */
export const OPEN_LOOP_RAMP = 20;
