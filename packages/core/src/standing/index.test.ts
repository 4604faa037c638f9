/** @module Standing: the median interval against brute force, which runs enter, the median curve, and shared ranks. */
import { describe, expect, it } from "vitest";
import { normal, seededRandom } from "../random/index.ts";
import { loadPosition } from "../run/index.ts";
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
      search: null,
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
