/** @module Standing: the median interval against brute force, which runs enter, the median curve, and shared ranks. */
import { describe, expect, it } from "vitest";
import { normal, seededRandom } from "../random/index.ts";
import { type Bracket, concurrencyOf, loadPosition, type SearchRecord } from "../run/index.ts";
import type { LevelFigures, RunIndexEntry } from "../run-index/index.ts";
import {
  type Estimate,
  estimate,
  MEDIAN_CONFIDENCE,
  medianIntervalRank,
  orderStatisticCoverage,
  rankLabel,
  ranksBy,
  standingOf,
  standingRuns,
  standings,
} from "./index.ts";

/** Exact coverage of [x_(k), x_(n-k+1)] by enumerating all 2^n below/above patterns of n draws around the median. */
function bruteCoverage(n: number, k: number): number {
  let covered = 0;
  for (let mask = 0; mask < 2 ** n; mask++) {
    let below = 0;
    for (let m = mask; m; m &= m - 1) below++;
    // x_(k) <= median needs at least k draws below it; median <= x_(n-k+1) needs at least k above.
    if (below >= k && n - below >= k) covered++;
  }
  return covered / 2 ** n;
}

/** The median by sorting a copy: the reference the estimate must equal. */
function sortedMedian(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? (s[(n - 1) / 2] as number) : ((s[n / 2 - 1] as number) + (s[n / 2] as number)) / 2;
}

describe("the median's interval", () => {
  it("has the exact coverage that enumerating every pattern gives, for n = 1..18", () => {
    for (let n = 1; n <= 18; n++) {
      for (let k = 1; 2 * k <= n + 1; k++) expect(orderStatisticCoverage(n, k)).toBeCloseTo(bruteCoverage(n, k), 12);
    }
  });

  it("picks the narrowest interval still covering 95 %, and the range when n is too small for it", () => {
    for (let n = 1; n <= 18; n++) {
      const k = medianIntervalRank(n);
      if (n < 6) {
        expect(k, `n=${n}`).toBe(1);
        expect(bruteCoverage(n, 1)).toBeLessThan(MEDIAN_CONFIDENCE);
        continue;
      }
      expect(bruteCoverage(n, k), `n=${n}`).toBeGreaterThanOrEqual(MEDIAN_CONFIDENCE);
      // One step narrower would cover less than 95 %.
      if (2 * (k + 1) <= n + 1) expect(bruteCoverage(n, k + 1), `n=${n}`).toBeLessThan(MEDIAN_CONFIDENCE);
    }
    // Known values of the sign-test interval: n = 6..8 the range, n = 9..11 the 2nd order statistic, n = 24 the 7th.
    expect([6, 8, 9, 11, 12, 24].map(medianIntervalRank)).toEqual([1, 1, 2, 2, 3, 7]);
  });

  it("stays finite and sensible for large n", () => {
    const k = medianIntervalRank(2000);
    expect(orderStatisticCoverage(2000, k)).toBeGreaterThanOrEqual(MEDIAN_CONFIDENCE);
    // Normal approximation: k ~ n/2 - 1.96 sqrt(n)/2.
    expect(Math.abs(k - (1000 - (1.96 * Math.sqrt(2000)) / 2))).toBeLessThan(3);
  });

  it("equals the sorted median and order statistics on seeded data, and covers the true median as often as computed", () => {
    const random = seededRandom(11);
    const trueMedian = 500; // a log-normal's median is exp(mu)
    for (const n of [1, 2, 3, 5, 7, 12, 24]) {
      let covered = 0;
      let mismatches = 0;
      const trials = 3000;
      const k = medianIntervalRank(n);
      for (let t = 0; t < trials; t++) {
        const values = Array.from({ length: n }, () => trueMedian * Math.exp(0.15 * normal(random)));
        const e = estimate(values) as Estimate;
        const sorted = [...values].sort((a, b) => a - b);
        if (e.median !== sortedMedian(values) || e.low !== sorted[k - 1] || e.high !== sorted[n - k] || e.n !== n)
          mismatches++;
        if (e.low <= trueMedian && trueMedian <= e.high) covered++;
      }
      expect(mismatches, `n=${n}`).toBe(0);
      const expected = bruteCoverage(n, medianIntervalRank(n));
      const se = Math.sqrt((expected * (1 - expected)) / trials);
      expect(Math.abs(covered / trials - expected), `n=${n}`).toBeLessThanOrEqual(4 * se + 1e-9);
    }
  });

  it("is null without values and ignores non-finite ones", () => {
    expect(estimate([])).toBeNull();
    expect(estimate([Number.NaN, 3])).toEqual({ median: 3, low: 3, high: 3, n: 1 });
  });
});

// ---------------------------------------------------------------------------------------------

const HOUR = 3_600_000;
const NOW = "2026-06-10T00:00:00.000Z";

interface RunShape {
  hoursAgo: number;
  /** Aggregate tok/s per level, by concurrency; a null value makes the level invalid. */
  aggregate: Record<number, number | null>;
  status?: "complete" | "partial";
  target?: string;
  scenario?: string;
  ttftP95Ms?: number;
  /** An open loop: each level's offered rate, requests/s, by level number. */
  rates?: Record<number, number>;
  /** A searched run: its brackets (and axis); absent, a ladder's run. */
  search?: { capacity: Bracket; knee: Bracket; axis?: SearchRecord["axis"] };
}

/** A searched run's record around its brackets: the standing reads the brackets and the axis alone. */
function searchRecord(search: NonNullable<RunShape["search"]>): SearchRecord {
  return {
    axis: search.axis ?? "concurrency",
    from: 1,
    to: 64,
    resolution: 0.1,
    confidence: 0.95,
    capacity: search.capacity,
    knee: search.knee,
    stop: { reason: "resolved", detail: "" },
    requests: 200,
    promptTokens: 0,
    outputTokens: 0,
    ladderRequests: 448,
  };
}

let serial = 0;
function run(shape: RunShape): RunIndexEntry {
  const targetId = shape.target ?? "t";
  const startedAt = new Date(Date.parse(NOW) - shape.hoursAgo * HOUR).toISOString();
  const runId = `${targetId}-${serial++}`;
  // Keys are N (a closed loop) or level numbers (an open loop, whose rates are `rates`), ascending.
  const levels: LevelFigures[] = Object.entries(shape.aggregate).map(([n, aggregate], i) => ({
    level: i + 1,
    load: shape.rates
      ? { kind: "open", arrival: "poisson", ratePerSecond: shape.rates[Number(n)] as number }
      : { kind: "closed", concurrency: Number(n) },
    probe: null,
    aggregateOutputTokensPerSecond: aggregate ?? 1,
    perStreamOutputTokensPerSecondP50: (aggregate ?? 1) / Number(n),
    ttftP50Ms: 100 * Number(n),
    ttftP95Ms: shape.ttftP95Ms ?? 150 * Number(n),
    ttftP99Ms: null,
    e2eP50Ms: null,
    e2eP95Ms: null,
    e2eP99Ms: null,
    sent: 10,
    ok: 10,
    rateLimited: aggregate === null ? 3 : 0,
    valid: aggregate !== null,
    invalidReasons: aggregate === null ? ["rate-limited: 3 of 10 sent (over 5 %)"] : [],
    goodputOutputTokensPerSecond: aggregate === null ? null : aggregate * 0.9,
    sloFigures: null,
    aggregateWindow: null,
    ttftAnswerP50Ms: null,
    meetsSlo: null,
    meteredUsdPerMillionOutputTokens: null,
    declaredUsdPerMillionOutputTokens: null,
    cachedPromptTokenShare: null,
    reusablePromptTokenShare: null,
    laterTurnsTtftP50Ms: null,
    conversation: null,
  }));
  return {
    key: `runs/${targetId}/${startedAt}-${runId}.json`,
    targetId,
    scenario: shape.scenario ?? "chat",
    runId,
    label: targetId,
    model: "m",
    modelKey: "m",
    slo: null,
    route: { gateway: "direct" },
    startedAt,
    finishedAt: startedAt,
    status: shape.status ?? "complete",
    partialReason: shape.status === "partial" ? "deadline" : null,
    simulated: true,
    // The standing reads levels only; the run's own summary is irrelevant to it.
    summary: {
      singleStream: null,
      peak: null,
      kneeConcurrency: null,
      saturated: false,
      scalingEfficiency: null,
      errorRate: 0,
      rateLimitRate: 0,
      valid: levels.every((l) => l.valid),
      stop: null,
      capacity: null,
      capacityRequestsPerSecond: null,
      goodputPeak: null,
      capacityBracket: null,
      search: shape.search ? searchRecord(shape.search) : null,
    },
    levels,
    servedProviders: [],
  };
}

describe("which runs enter a standing", () => {
  it("uses what it has when fewer runs than maxRuns are in the window", () => {
    const runs = [5, 10, 20].map((h) => run({ hoursAgo: h, aggregate: { 1: 100 + h } }));
    const s = standingOf("t", runs, { now: NOW, config: { windowHours: 72, maxRuns: 24 } });
    expect(s.runIds).toEqual(runs.map((r) => r.runId));
    expect(s.levels[0]?.aggregateOutputTokensPerSecond).toEqual({ median: 110, low: 105, high: 120, n: 3 });
    expect(s.beyondWindow).toBe(false);
  });

  it("keeps only the newest maxRuns, and never a run outside the window or after now", () => {
    const inside = Array.from({ length: 10 }, (_, i) => run({ hoursAgo: i + 1, aggregate: { 1: 100 } }));
    const outside = run({ hoursAgo: 73, aggregate: { 1: 1 } });
    const future = run({ hoursAgo: -1, aggregate: { 1: 1 } });
    const { runs } = standingRuns([outside, future, ...inside], NOW, { windowHours: 72, maxRuns: 4 });
    expect(runs.map((r) => r.runId)).toEqual(inside.slice(0, 4).map((r) => r.runId));
    // The window's edge: exactly windowHours ago is inside.
    const edge = run({ hoursAgo: 72, aggregate: { 1: 1 } });
    expect(standingRuns([edge], NOW, { windowHours: 72, maxRuns: 4 }).runs).toEqual([edge]);
  });

  it("never lets a partial run or one without a valid level enter, however new", () => {
    const good = run({ hoursAgo: 30, aggregate: { 1: 100, 2: 180 } });
    const partial = run({ hoursAgo: 1, aggregate: { 1: 5, 2: 5 }, status: "partial" });
    const invalid = run({ hoursAgo: 2, aggregate: { 1: null, 2: null } });
    const s = standingOf("t", [good, partial, invalid], { now: NOW });
    expect(s.runIds).toEqual([good.runId]);
    expect(s.peak?.aggregateOutputTokensPerSecond.median).toBe(180);
  });

  it("falls back to the latest valid complete run however old, and only to it", () => {
    const older = run({ hoursAgo: 500, aggregate: { 1: 90 } });
    const latestValid = run({ hoursAgo: 400, aggregate: { 1: 95 } });
    const newerInvalid = run({ hoursAgo: 10, aggregate: { 1: null } });
    const s = standingOf("t", [older, latestValid, newerInvalid], { now: NOW });
    expect(s.runIds).toEqual([latestValid.runId]);
    expect(s.beyondWindow).toBe(true);
    expect(s.levels[0]?.aggregateOutputTokensPerSecond).toEqual({ median: 95, low: 95, high: 95, n: 1 });
    expect(standingOf("t", [newerInvalid], { now: NOW }).runIds).toEqual([]);
  });
});

describe("a standing's levels and its median curve", () => {
  it("lets only valid levels enter an estimate and lists invalid ones with their reason", () => {
    const runs = [
      run({ hoursAgo: 1, aggregate: { 1: 100, 2: 190, 4: null } }),
      run({ hoursAgo: 2, aggregate: { 1: 110, 2: 170, 4: 400 } }),
      run({ hoursAgo: 3, aggregate: { 1: 90, 2: null, 4: null } }),
    ];
    const s = standingOf("t", runs, { now: NOW });
    const [l1, l2, l4] = s.levels;
    expect(l1?.aggregateOutputTokensPerSecond).toEqual({ median: 100, low: 90, high: 110, n: 3 });
    expect(l2).toMatchObject({ validRuns: 2, invalidRuns: 1, ranked: true });
    expect(l2?.aggregateOutputTokensPerSecond).toEqual({ median: 180, low: 170, high: 190, n: 2 });
    expect(l2?.goodputOutputTokensPerSecond?.median).toBeCloseTo(162, 9);
    // Valid in one run of three: shown, not ranked; its one value never gives the peak.
    expect(l4).toMatchObject({ validRuns: 1, invalidRuns: 2, ranked: false });
    expect(l4?.invalidReasons[0]).toContain("rate-limited");
    expect(s.peak?.load).toEqual({ kind: "closed", concurrency: 2 });
    expect(s.singleStream?.outputTokensPerSecond?.median).toBe(100);
  });

  it("reads peak, knee, efficiency and capacity off the median curve", () => {
    // Medians: N=1 100, N=2 190, N=4 350, N=8 380 (under +15 % over 350): knee at 4, peak at 8.
    const curves = [
      { 1: 100, 2: 190, 4: 350, 8: 380 },
      { 1: 90, 2: 200, 4: 340, 8: 390 },
      { 1: 120, 2: 180, 4: 360, 8: 370 },
    ];
    const s = standingOf(
      "t",
      curves.map((aggregate, i) => run({ hoursAgo: i + 1, aggregate })),
      { now: NOW, slo: { minOutputTokensPerSecond: 80, maxTtftMs: 2000 } },
    );
    expect(s.peak?.load).toEqual({ kind: "closed", concurrency: 8 });
    expect(s.peak?.aggregateOutputTokensPerSecond).toEqual({ median: 380, low: 370, high: 390, n: 3 });
    expect([s.kneeConcurrency, s.saturated]).toEqual([4, true]);
    expect(s.scalingEfficiency).toBeCloseTo(380 / (8 * 100), 12);
    // Per-stream medians: 100, 95, 87.5, 47.5 tok/s; TTFT p95 150 N ms. At >= 80 tok/s: up to N=4.
    expect(s.capacity?.load).toEqual({ kind: "closed", concurrency: 4 });
    // TTFT p95 150 N ms: a 300 ms limit stops capacity at N = 2; no limit (null) leaves it at 4.
    const runs = curves.map((aggregate, i) => run({ hoursAgo: i + 1, aggregate }));
    const tight = standingOf("t", runs, { now: NOW, slo: { minOutputTokensPerSecond: 80, maxTtftMs: 300 } });
    expect(tight.capacity?.load).toEqual({ kind: "closed", concurrency: 2 });
    const speedOnly = standingOf("t", runs, { now: NOW, slo: { minOutputTokensPerSecond: 80, maxTtftMs: null } });
    expect(speedOnly.capacity?.load).toEqual({ kind: "closed", concurrency: 4 });
    const strict = standingOf("t", [run({ hoursAgo: 1, aggregate: { 1: 10 } })], { now: NOW });
    expect(strict.capacity).toBeNull();
  });

  it("reads capacity off the SLO's figures where runs recorded them: a p95 on failed requests misses", () => {
    const curves = [
      { 1: 100, 2: 190, 4: 350, 8: 380 },
      { 1: 90, 2: 200, 4: 340, 8: 390 },
      { 1: 120, 2: 180, 4: 360, 8: 370 },
    ];
    const slo = { minOutputTokensPerSecond: 80, maxTtftMs: 2000 };
    // Over its ok requests N = 4 meets (87.5 tok/s, 600 ms); in two of three runs its TTFT p95 fell on failed requests.
    const runs = curves.map((aggregate, i) => {
      const entry = run({ hoursAgo: i + 1, aggregate });
      return {
        ...entry,
        levels: entry.levels.map((l) => ({
          ...l,
          sloFigures: {
            requests: 10,
            failed: concurrencyOf(l.load) === 4 && i < 2 ? 1 : 0,
            ttftP95Ms: concurrencyOf(l.load) === 4 && i < 2 ? null : l.ttftP95Ms,
            perStreamOutputTokensPerSecondP50: l.perStreamOutputTokensPerSecondP50 as number,
          },
        })),
      };
    });
    const s = standingOf("t", runs, { now: NOW, slo });
    expect(s.levels.map((l) => [concurrencyOf(l.load), l.meetsSlo])).toEqual([
      [1, true],
      [2, true],
      [4, false],
      [8, false],
    ]);
    expect(s.capacity?.load).toEqual({ kind: "closed", concurrency: 2 });
    // The same runs without their SLO figures (entries recorded before them) read the ok requests' p95: 4.
    const before = standingOf(
      "t",
      curves.map((aggregate, i) => run({ hoursAgo: i + 1, aggregate })),
      { now: NOW, slo },
    );
    expect(before.capacity?.load).toEqual({ kind: "closed", concurrency: 4 });
  });

  it("computes every target's standing from mixed entries", () => {
    const entries = [
      run({ hoursAgo: 1, aggregate: { 1: 100 }, target: "a" }),
      run({ hoursAgo: 1, aggregate: { 1: 50 }, target: "b" }),
      run({ hoursAgo: 2, aggregate: { 1: 60 }, target: "b" }),
    ];
    const all = standings(entries, { now: NOW });
    expect([...all.keys()].sort()).toEqual(["a", "b"]);
    expect(all.get("b")?.levels[0]?.aggregateOutputTokensPerSecond?.median).toBe(55);
  });

  it("takes each (target, scenario) apart: its own runs, capacity and scenario, chat keyed by the target id", () => {
    const entries = [
      run({ hoursAgo: 1, aggregate: { 1: 100, 2: 190 }, target: "a" }),
      run({ hoursAgo: 2, aggregate: { 1: 110, 2: 200 }, target: "a" }),
      run({ hoursAgo: 1, aggregate: { 1: 20, 2: 22 }, target: "a", scenario: "rag", ttftP95Ms: 5000 }),
      run({ hoursAgo: 1, aggregate: { 1: 30 }, target: "b", scenario: "rag" }),
    ];
    const all = standings(entries, { now: NOW });
    expect([...all.keys()].sort()).toEqual(["a", "a/rag", "b/rag"]);
    const chat = all.get("a");
    const rag = all.get("a/rag");
    expect([chat?.scenario, chat?.runIds.length, chat?.levels[0]?.aggregateOutputTokensPerSecond?.median]).toEqual([
      "chat",
      2,
      105,
    ]);
    expect([rag?.targetId, rag?.scenario, rag?.runIds.length]).toEqual(["a", "rag", 1]);
    expect(rag?.levels[0]?.aggregateOutputTokensPerSecond?.median).toBe(20);
    expect(chat?.capacity?.load).toEqual({ kind: "closed", concurrency: 2 });
    expect(rag?.capacity).toBeNull();
  });
});

describe("a searched series' standing", () => {
  /** A found bracket [value, hi] (capacity's: largest met, first missed), or another status. */
  const found = (value: number, hi: number): Bracket => ({ value, lo: value, hi, status: "found" });
  // Each run probed its own loads (doubling, then bisecting), so levels differ run to run.
  const searched = (hoursAgo: number, capacity: Bracket, knee: Bracket, loads: number[]) =>
    run({
      hoursAgo,
      aggregate: Object.fromEntries(loads.map((n) => [n, 100 * Math.min(n, 8)])),
      search: { capacity, knee },
    });

  it("gives capacity and knee over 3 searched runs: the medians and, at n = 3, the range as interval", () => {
    const entries = [
      searched(1, found(5, 6), found(10, 11), [1, 2, 4, 5, 6, 8, 10, 11, 16]),
      searched(2, found(4, 5), found(9, 10), [1, 2, 4, 5, 8, 9, 10, 16]),
      searched(3, found(6, 7), found(11, 12), [1, 2, 4, 6, 7, 8, 11, 12, 16]),
    ];
    const s = standingOf("t", entries, { now: NOW });
    // medianIntervalRank(3) = 1: the interval is the range (75 % coverage, as the standing says of n < 6).
    expect(s.search).toEqual({
      axis: "concurrency",
      capacity: { estimate: { median: 5, low: 4, high: 6, n: 3 }, runs: 3, found: 3, undecided: 0 },
      knee: { estimate: { median: 10, low: 9, high: 11, n: 3 }, runs: 3, found: 3, undecided: 0 },
    });
  });

  it("over 5 runs takes the median of every value given, a capacity below `from` as 0, and counts the undecided", () => {
    const entries = [
      searched(1, found(5, 6), found(10, 11), [1, 2, 4, 5, 6, 8, 16]),
      // Undecided at 6 after 5 met: 5 is still the largest load that met the SLO.
      searched(2, { value: 5, lo: 5, hi: 6, status: "undecided" }, found(9, 10), [1, 2, 4, 5, 6, 8, 16]),
      searched(3, found(7, 8), found(12, 13), [1, 2, 4, 7, 8, 16]),
      // Missed already at `from`: serves no user at the SLO; its knee sits at `from`.
      searched(
        4,
        { value: null, lo: null, hi: 1, status: "below_from" },
        { value: 1, lo: null, hi: 1, status: "below_from" },
        [1, 2],
      ),
      // Undecided at the lowest load: no capacity value at all, so it does not enter that estimate.
      searched(
        5,
        { value: null, lo: null, hi: 1, status: "undecided" },
        { value: 11, lo: 10, hi: 11, status: "found" },
        [1, 2, 4, 8, 10, 11, 16],
      ),
    ];
    const s = standingOf("t", entries, { now: NOW });
    // Capacity values 5, 5, 7, 0 (n = 4, range); knee values 10, 9, 12, 1, 11 (n = 5, range: rank 1 below n = 6).
    expect(s.search?.capacity).toEqual({
      estimate: { median: 5, low: 0, high: 7, n: 4 },
      runs: 5,
      found: 2,
      undecided: 2,
    });
    expect(s.search?.knee).toEqual({
      estimate: { median: 10, low: 1, high: 12, n: 5 },
      runs: 5,
      found: 4,
      undecided: 0,
    });
  });

  it("narrows the interval to inner order statistics once the runs are enough (n = 9: the 2nd and 8th)", () => {
    const caps = [5, 4, 6, 5, 5, 3, 7, 5, 6];
    const entries = caps.map((c, i) => searched(i + 1, found(c, c + 1), found(10, 11), [1, 2, 4, c, c + 1, 8, 16]));
    const s = standingOf("t", entries, { now: NOW, config: { windowHours: 72, maxRuns: 24 } });
    // Sorted 3 4 5 5 5 5 6 6 7: median 5, x_(2) = 4, x_(8) = 6.
    expect(s.search?.capacity.estimate).toEqual({ median: 5, low: 4, high: 6, n: 9 });
  });

  it("reads an open loop's searched rates in requests/s, and takes only the searched runs of a mixed series", () => {
    const rates = { 1: 2, 2: 3, 3: 3.25, 4: 4 };
    const open = (hoursAgo: number, capacity: number | null) =>
      run({
        hoursAgo,
        aggregate: { 1: 200, 2: 300, 3: 320, 4: 330 },
        rates,
        ...(capacity === null
          ? {}
          : { search: { axis: "rate" as const, capacity: found(capacity, capacity * 1.1), knee: found(3, 3.25) } }),
      });
    const s = standingOf("t", [open(1, 3.25), open(2, null), open(3, 3), open(4, 3.5)], { now: NOW });
    expect(s.runIds).toHaveLength(4);
    expect(s.search?.axis).toBe("rate");
    expect(s.search?.capacity).toEqual({
      estimate: { median: 3.25, low: 3, high: 3.5, n: 3 },
      runs: 3,
      found: 3,
      undecided: 0,
    });
  });

  it("leaves a ladder's standing without a search", () => {
    const s = standingOf("t", [run({ hoursAgo: 1, aggregate: { 1: 100, 2: 190 } })], { now: NOW });
    expect(s.search).toBeNull();
  });
});

describe("an open loop's standing", () => {
  // The two newest runs offered 1, 2, 4 and 8 requests/s as levels 1-4; the oldest, before rate 1
  // was added, offered 2, 4 and 8 as levels 1-3. Medians by rate: 95, 190, 350, 380 tok/s.
  const entries = () => [
    run({ hoursAgo: 1, aggregate: { 1: 100, 2: 190, 3: 350, 4: 380 }, rates: { 1: 1, 2: 2, 3: 4, 4: 8 } }),
    run({ hoursAgo: 2, aggregate: { 1: 90, 2: 200, 3: 340, 4: 390 }, rates: { 1: 1, 2: 2, 3: 4, 4: 8 } }),
    run({ hoursAgo: 3, aggregate: { 1: 180, 2: 360, 3: 370 }, rates: { 1: 2, 2: 4, 3: 8 } }),
  ];

  it("keys its levels by offered rate and reads its knee, peak and capacity in rate", () => {
    // Per-stream medians (aggregate / level number): 95, 100, 116.7 and 97.5 tok/s; at >= 100: rates 2 and 4.
    const s = standingOf("t", entries(), { now: NOW, slo: { minOutputTokensPerSecond: 100, maxTtftMs: 2000 } });
    expect(s.levels.map((l) => [loadPosition(l.load), l.level, l.validRuns])).toEqual([
      [1, 1, 2],
      [2, 2, 3],
      [4, 3, 3],
      [8, 4, 3],
    ]);
    expect(s.levels.map((l) => l.aggregateOutputTokensPerSecond?.median)).toEqual([95, 190, 350, 380]);
    expect(s.kneeConcurrency).toBeNull();
    expect(s.kneeRequestsPerSecond).toBe(4);
    expect(s.saturated).toBe(true);
    expect(s.peak).toEqual({
      level: 4,
      load: { kind: "open", arrival: "poisson", ratePerSecond: 8 },
      aggregateOutputTokensPerSecond: { median: 380, low: 370, high: 390, n: 3 },
      perStreamOutputTokensPerSecond: { median: 97.5, low: 95, high: 370 / 3, n: 3 },
    });
    expect(s.capacity).toEqual({ level: 3, load: { kind: "open", arrival: "poisson", ratePerSecond: 4 } });
    expect(s.singleStream).toBeNull();
    expect(s.scalingEfficiency).toBeNull();
  });

  it("has a null rate knee while the median aggregate still climbs at the top rate", () => {
    const climbing = [1, 2].map((h) =>
      run({ hoursAgo: h, aggregate: { 1: 100, 2: 200, 3: 400 }, rates: { 1: 1, 2: 2, 3: 4 } }),
    );
    const s = standingOf("t", climbing, { now: NOW });
    expect([s.kneeConcurrency, s.kneeRequestsPerSecond, s.saturated]).toEqual([null, null, false]);
  });

  it("takes only runs of the newest run's kind: closed-loop runs before an open loop do not enter", () => {
    const closed = run({ hoursAgo: 4, aggregate: { 1: 1000, 2: 1000 } });
    const s = standingOf("t", [...entries(), closed], { now: NOW });
    expect(s.runIds).not.toContain(closed.runId);
    expect(s.runIds).toHaveLength(3);
    expect(s.levels.map((l) => loadPosition(l.load))).toEqual([1, 2, 4, 8]);
  });

  it("leaves a closed loop's standing without any rate field", () => {
    const s = standingOf("t", [run({ hoursAgo: 1, aggregate: { 1: 100, 2: 190, 4: 200 } })], { now: NOW });
    expect(s.kneeConcurrency).toBe(2);
    expect(Object.keys(s)).not.toContain("kneeRequestsPerSecond");
    expect(s.levels.every((l) => l.load.kind === "closed")).toBe(true);
    expect(s.peak?.load.kind).toBe("closed");
    expect(Object.keys(s.capacity ?? {})).toEqual(["level", "load"]);
  });
});

describe("a trace replay's standing", () => {
  /** A run of a replay at speedups 1, 2 and 4 (levels 1-3). */
  const replay = (hoursAgo: number, aggregate: Record<number, number>) => {
    const entry = run({ hoursAgo, aggregate });
    for (const l of entry.levels) l.load = { kind: "trace", speedup: [1, 2, 4][l.level - 1] as number };
    return entry;
  };

  it("keys its levels by speedup, reads its peak there, and gives no knee in users or requests/s", () => {
    const s = standingOf("t", [replay(1, { 1: 100, 2: 150, 3: 160 }), replay(2, { 1: 110, 2: 160, 3: 170 })], {
      now: NOW,
    });
    expect(s.levels.map((l) => l.load)).toEqual([1, 2, 4].map((speedup) => ({ kind: "trace", speedup })));
    expect(s.peak?.load).toEqual({ kind: "trace", speedup: 4 });
    expect(s.kneeConcurrency).toBeNull();
    expect(Object.keys(s)).not.toContain("kneeRequestsPerSecond");
    expect(s.singleStream).toBeNull();
  });

  it("takes only runs on the newest run's axis: a closed loop's runs before the replay do not enter", () => {
    const closed = run({ hoursAgo: 3, aggregate: { 1: 1000, 2: 1000 } });
    const s = standingOf("t", [replay(1, { 1: 100, 2: 150, 3: 160 }), closed], { now: NOW });
    expect(s.runIds).not.toContain(closed.runId);
  });
});

describe("ranks", () => {
  const e = (low: number, high: number): Estimate => ({ median: (low + high) / 2, low, high, n: 3 });

  it("shares a rank between overlapping intervals and separates disjoint ones", () => {
    const ranks = ranksBy([
      { id: "a", estimate: e(100, 110) },
      { id: "b", estimate: e(105, 120) },
      { id: "c", estimate: e(90, 104) },
      { id: "d", estimate: e(10, 20) },
      { id: "none", estimate: null },
    ]);
    // a and b overlap: both first. c overlaps a but lies wholly under b: second. d lies under all three.
    expect(Object.fromEntries(ranks)).toEqual({ a: 1, b: 1, c: 2, d: 4, none: null });
    const all = [...ranks.values()];
    expect(["a", "c", "d", "none"].map((id) => rankLabel(ranks.get(id) ?? null, all))).toEqual(["=1", "2", "4", "—"]);
  });

  it("touching intervals overlap (a shared bound is no separation), and lower can be better", () => {
    const touching = ranksBy([
      { id: "a", estimate: e(100, 110) },
      { id: "b", estimate: e(110, 120) },
    ]);
    expect([touching.get("a"), touching.get("b")]).toEqual([1, 1]);
    const ttft = ranksBy(
      [
        { id: "fast", estimate: e(100, 110) },
        { id: "slow", estimate: e(200, 220) },
      ],
      "lower",
    );
    expect([ttft.get("fast"), ttft.get("slow")]).toEqual([1, 2]);
  });
});

describe("a conversation level's standing", () => {
  /** A run whose level N = 4 is a conversation level with this verdict and later-turn TTFT p50. */
  const talk = (hoursAgo: number, verdict: "no_cache_seen" | "not_reported", laterTurnsTtftP50Ms: number) => {
    const entry = run({ hoursAgo, aggregate: { 4: 100 } });
    const level = entry.levels[0] as LevelFigures;
    // Its kind's figures are read by its kind: the level is a conversation's.
    level.load = { kind: "conversation", concurrency: 4, turns: 3 };
    level.laterTurnsTtftP50Ms = laterTurnsTtftP50Ms;
    level.conversation = { byTurn: [], cacheVerdict: verdict };
    return entry;
  };

  it("estimates the later turns' TTFT p50 and takes the verdict most runs gave, a tie to the newest", () => {
    const s = standingOf(
      "t",
      [talk(1, "not_reported", 90), talk(2, "no_cache_seen", 80), talk(3, "no_cache_seen", 70)],
      {
        now: NOW,
      },
    );
    expect(s.levels[0]?.laterTurnsTtftP50Ms).toMatchObject({ median: 80, n: 3 });
    expect(s.levels[0]?.cacheVerdict).toBe("no_cache_seen");
    const tie = standingOf("t", [talk(1, "not_reported", 90), talk(2, "no_cache_seen", 80)], { now: NOW });
    expect(tie.levels[0]?.cacheVerdict).toBe("not_reported");
    // Other levels have neither.
    const chat = standingOf("t", [run({ hoursAgo: 1, aggregate: { 4: 100 } })], { now: NOW });
    expect(chat.levels[0]).toMatchObject({ laterTurnsTtftP50Ms: null, cacheVerdict: null });
  });
});
