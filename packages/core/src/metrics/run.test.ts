/** @module Tests of a run's headline figures (knee, peak, single stream, capacity, goodput peak) and of where the sweep stops. */
import { describe, expect, it } from "vitest";
import {
  type Level,
  Level as LevelSchema,
  type Sample,
  type Stop,
  Summary as SummarySchema,
  stopLabel,
} from "../run/index.ts";
import { summarizeLevel } from "./level.ts";
import { levelStop, summarizeRun } from "./run.ts";
import { failed, levelDefaults, sample } from "./sample.fixture.ts";
import { MIN_OPEN_LOOP_REQUESTS } from "./validity.ts";

/** A valid level with a given aggregate (tokens over a 1 s wall time). */
function levelWith(concurrency: number, aggregate: number, over: Partial<Level> = {}): Level {
  const level = summarizeLevel({
    level: Math.log2(concurrency) + 1,
    load: { kind: "closed", concurrency },
    samples: [
      sample({
        completionTokens: aggregate,
        outputTokensPerSecond: aggregate / concurrency,
      }),
    ],
    achievedConcurrency: concurrency,
    ...levelDefaults,
  });
  return { ...level, ...over };
}

/**
 * Level `n` of an open loop offering `rate` requests/s, valid, with a given aggregate (tokens over a
 * 1 s wall time) and per-stream tok/s; its schedule kept (lags well under the tolerance).
 */
function rateLevel(n: number, rate: number, aggregate: number, perStream = 60): Level {
  return summarizeLevel({
    level: n,
    load: { kind: "open", arrival: "poisson", ratePerSecond: rate },
    // The open loop's minimum of requests, sharing the level's tokens: a rate measured on enough sends.
    samples: Array.from({ length: MIN_OPEN_LOOP_REQUESTS }, () =>
      sample({ completionTokens: aggregate / MIN_OPEN_LOOP_REQUESTS, outputTokensPerSecond: perStream }),
    ),
    achievedConcurrency: 1,
    slo: { minOutputTokensPerSecond: 50, maxTtftMs: 2000 },
    schedule: {
      achievedRatePerSecond: rate,
      inFlightMean: 1,
      inFlightMax: 2,
      scheduleLagsMs: [0.1, 0.2],
      maxInFlight: 256,
      maxInFlightHit: false,
    },
    ...levelDefaults,
  });
}

describe("levelStop", () => {
  const at = (samples: Sample[], extra: { endedEarly?: boolean; concurrency?: number } = {}) =>
    summarizeLevel({
      load: { kind: "closed", concurrency: extra.concurrency ?? 8 },
      samples,
      achievedConcurrency: extra.concurrency ?? 8,
      endedEarly: extra.endedEarly,
      ...levelDefaults,
    });
  const many = <T>(n: number, make: () => T): T[] => Array.from({ length: n }, make);

  it("is null for a valid level and for levels invalid for other reasons", () => {
    expect(levelStop(at(many(20, () => sample())))).toBeNull();
    expect(levelStop(at([...many(18, () => sample()), ...many(2, () => failed("route_mismatch"))]))).toBeNull();
    const lagged = summarizeLevel({
      load: { kind: "closed", concurrency: 1 },
      samples: [sample()],
      wallTimeMs: 1000,
      achievedConcurrency: 1,
      eventLoopLagP99Ms: 50,
    });
    expect(levelStop(lagged)).toBeNull();
    // Exactly 5 % of each does not stop the sweep.
    expect(levelStop(at([...many(19, () => sample()), failed("rate_limited")]))).toBeNull();
    expect(levelStop(at([...many(19, () => sample()), failed("timeout")]))).toBeNull();
  });

  it("names rate limits, in words, and they win over failures", () => {
    const stop = levelStop(
      at([...many(12, () => sample()), ...many(6, () => failed("rate_limited")), ...many(2, () => failed("timeout"))]),
    );
    expect(stop).toEqual({
      level: 1,
      load: { kind: "closed", concurrency: 8 },
      reason: "rate_limited",
      detail: "rate-limited from N=8: 6 of 20 requests got 429 (30 %, over 5 %); the sweep ran no higher level",
    });
  });

  it("names failures with what the endpoint answered", () => {
    const level = at(
      many(3, () => failed("http_error")),
      { endedEarly: true, concurrency: 1 },
    );
    const stop = levelStop(
      level,
      many(4, () => ({ outcome: "http_error", httpStatus: 401, error: "401 invalid API key" })),
    );
    expect(stop?.reason).toBe("failures");
    expect(stop?.load).toEqual({ kind: "closed", concurrency: 1 });
    expect(stop?.detail).toContain("failing from N=1: 3 of 3 requests failed (3 http error)");
    expect(stop?.detail).toContain("401 invalid API key");
  });

  it("names an endpoint that never answered unreachable, even with no measured request", () => {
    const refused = { outcome: "network" as const, httpStatus: null, error: "connect ECONNREFUSED 127.0.0.1:9" };
    const stop = levelStop(
      at(
        many(3, () => failed("network")),
        { endedEarly: true, concurrency: 1 },
      ),
      many(4, () => refused),
    );
    expect(stop?.reason).toBe("unreachable");
    expect(stop?.detail).toContain("ECONNREFUSED");
    // Four warm-up requests all failed: nothing was measured, and the level still stops the sweep.
    const warmOnly = at([], { endedEarly: true, concurrency: 1 });
    expect(
      levelStop(
        warmOnly,
        many(4, () => refused),
      )?.reason,
    ).toBe("unreachable");
    // Without the first results nothing says whether anything answered.
    expect(levelStop(warmOnly)?.reason).toBe("failures");
    // A failure with an answer (here a timeout after a 200) is not unreachable.
    const slow = { outcome: "timeout" as const, httpStatus: 200, error: "request timed out" };
    expect(
      levelStop(
        at(
          many(3, () => failed("timeout")),
          { endedEarly: true },
        ),
        many(4, () => slow),
      )?.reason,
    ).toBe("failures");
  });

  it("stops after an early end read from an older document, which has the sentences and no codes", () => {
    const { invalid: _, ...stored } = at([], { endedEarly: true, concurrency: 1 });
    const old = LevelSchema.parse(stored);
    expect(old.invalid).toEqual([]);
    expect(levelStop(old)?.reason).toBe("failures");
  });
});

describe("summarizeRun", () => {
  const concurrencies = [1, 2, 4, 8, 16, 32];

  it("finds the knee where no higher level adds over 15 %", () => {
    const aggregates = [100, 190, 350, 600, 640, 650];
    const s = summarizeRun(concurrencies.map((n, i) => levelWith(n, aggregates[i] as number)));
    expect(SummarySchema.parse(s)).toEqual(s);
    expect(s.kneeConcurrency).toBe(8);
    expect(s.saturated).toBe(true);
    expect(s.peak).toEqual({
      level: 6,
      load: { kind: "closed", concurrency: 32 },
      aggregateOutputTokensPerSecond: 650,
      perStreamOutputTokensPerSecond: 650 / 32,
      // These levels record no steady window: the whole level's aggregate, marked.
      window: "whole_level",
    });
    expect(s.scalingEfficiency).toBeCloseTo(650 / (32 * 100), 12);
    expect(s.valid).toBe(true);
  });

  it("has no knee while aggregate still climbs at the top", () => {
    const s = summarizeRun([1, 2, 4, 8].map((n) => levelWith(n, 100 * n)));
    expect(s.kneeConcurrency).toBeNull();
    expect(s.saturated).toBe(false);
    expect(s.scalingEfficiency).toBe(1);
  });

  it("does not take a flat start for the knee when a higher level still climbs", () => {
    const s = summarizeRun([levelWith(1, 100), levelWith(2, 105), levelWith(4, 300)]);
    expect(s.kneeConcurrency).toBeNull();
    expect(s.saturated).toBe(false);
  });

  it("treats exactly +15 % as no raise", () => {
    const s = summarizeRun([levelWith(1, 100), levelWith(2, 115)]);
    expect(s.kneeConcurrency).toBe(1);
    expect(s.saturated).toBe(true);
  });

  it("leaves invalid levels out of the knee and the peak", () => {
    const levels = [
      levelWith(1, 100),
      levelWith(2, 190),
      levelWith(4, 200),
      levelWith(8, 900, {
        valid: false,
        invalid: [{ code: "client_lag", detail: { eventLoopLagP99Ms: 30, limitMs: 20 } }],
      }),
    ];
    const s = summarizeRun(levels);
    expect(s.kneeConcurrency).toBe(2);
    expect(s.saturated).toBe(true);
    expect(s.peak?.load).toMatchObject({ concurrency: 4 });
    expect(s.scalingEfficiency).toBe(0.5);
    expect(s.valid).toBe(false);
  });

  it("never ranks an invalid level 1: no single stream and no efficiency baseline from it", () => {
    const level1 = summarizeLevel({
      load: { kind: "closed", concurrency: 1 },
      samples: [...Array.from({ length: 18 }, () => sample()), failed("rate_limited"), failed("rate_limited")],
      achievedConcurrency: 1,
      ...levelDefaults,
    });
    expect(level1.valid).toBe(false);
    const s = summarizeRun([level1, levelWith(2, 400)]);
    expect(s.singleStream).toBeNull();
    expect(s.scalingEfficiency).toBeNull();
    expect(s.peak?.load).toMatchObject({ concurrency: 2 });
    // The level keeps its data.
    expect(level1.perStream.outputTokensPerSecond.p50).toBe(100);
  });

  it("derives the stop from the lowest level calling for one, unless the sweep gives it", () => {
    const limited = summarizeLevel({
      load: { kind: "closed", concurrency: 4 },
      samples: [sample(), failed("rate_limited")],
      achievedConcurrency: 4,
      ...levelDefaults,
    });
    const s = summarizeRun([levelWith(1, 100), levelWith(2, 180), limited]);
    expect(s.stop?.reason).toBe("rate_limited");
    expect(s.stop?.load).toEqual({ kind: "closed", concurrency: 4 });
    expect(s.peak?.load).toMatchObject({ concurrency: 2 });
    expect(summarizeRun([levelWith(1, 100), limited], { stop: null }).stop).toBeNull();
    expect(summarizeRun([levelWith(1, 100), levelWith(2, 180)]).stop).toBeNull();
  });

  it("takes single-stream figures from level 1", () => {
    const level1 = summarizeLevel({
      load: { kind: "closed", concurrency: 1 },
      samples: [
        sample({
          ttftMs: 100,
          outputTokensPerSecond: 40,
          decodeTokensPerSecond: 50,
        }),
        sample({
          ttftMs: 200,
          outputTokensPerSecond: 60,
          decodeTokensPerSecond: 70,
        }),
      ],
      achievedConcurrency: 1,
      ...levelDefaults,
    });
    const s = summarizeRun([level1]);
    expect(s.singleStream).toEqual({
      outputTokensPerSecond: 50,
      decodeTokensPerSecond: 60,
      ttftP50Ms: 150,
      ttftP95Ms: 195,
    });
    expect(s.peak?.load).toMatchObject({ concurrency: 1 });
    expect(s.kneeConcurrency).toBeNull();
    expect(s.saturated).toBe(false);
    expect(s.scalingEfficiency).toBe(1);
  });

  it("has no single stream, peak or efficiency without the figures behind them", () => {
    const s = summarizeRun([levelWith(2, 200, { valid: false })]);
    expect(s.singleStream).toBeNull();
    expect(s.peak).toBeNull();
    expect(s.scalingEfficiency).toBeNull();
    expect(s.kneeConcurrency).toBeNull();
    const none = summarizeRun([]);
    expect(none).toEqual({
      singleStream: null,
      peak: null,
      kneeConcurrency: null,
      saturated: false,
      scalingEfficiency: null,
      errorRate: 0,
      rateLimitRate: 0,
      valid: false,
      capacity: null,
      capacityRequestsPerSecond: null,
      capacityBracket: null,
      goodputPeak: null,
      stop: null,
      search: null,
    });
  });

  it("gives a ladder's capacity as its bracket: [the highest step that met, the next step)", () => {
    const ladder = (meets: boolean[]) =>
      summarizeRun([1, 2, 4, 8].map((n, i) => levelWith(n, 100 * n, { meetsSlo: meets[i] as boolean })));
    expect(ladder([true, true, true, false]).capacityBracket).toEqual({
      kind: "ladder",
      lo: 4,
      hi: 8,
      confidence: null,
    });
    // The top step met: nothing above it was measured.
    expect(ladder([true, true, true, true]).capacityBracket).toMatchObject({ lo: 8, hi: null });
    // None met: below the lowest step.
    expect(ladder([false, false, false, false]).capacityBracket).toMatchObject({ lo: null, hi: 1 });
    // One level alone that met: capacity 1, not measured above it.
    expect(summarizeRun([levelWith(1, 100)]).capacityBracket).toMatchObject({ lo: 1, hi: null });
  });

  it("gives an open loop's capacity as its bracket in requests/s: [the highest rate that met, the next rate)", () => {
    // Per-stream falls below the SLO's 50 tok/s from 2 req/s: met at 0.5 and 1, missed at 2 and 4.
    const levels = [0.5, 1, 2, 4].map((r, i) => rateLevel(i + 1, r, 100 * r, r < 2 ? 60 : 40));
    const s = summarizeRun(levels);
    expect(s.capacityRequestsPerSecond).toBe(1);
    expect(s.capacityBracket).toEqual({ kind: "ladder", lo: 1, hi: 2, confidence: null });
    // Every rate met: nothing above the top rate was measured.
    expect(summarizeRun(levels.slice(0, 2)).capacityBracket).toMatchObject({ lo: 1, hi: null });
  });

  it("computes error and rate-limit rates over every level", () => {
    const a = summarizeLevel({
      load: { kind: "closed", concurrency: 1 },
      samples: [sample(), sample(), failed("rate_limited"), failed("timeout")],
      achievedConcurrency: 1,
      ...levelDefaults,
    });
    const b = summarizeLevel({
      load: { kind: "closed", concurrency: 2 },
      samples: [sample(), sample(), sample(), failed("rate_limited")],
      achievedConcurrency: 2,
      ...levelDefaults,
    });
    const s = summarizeRun([a, b]);
    expect(s.errorRate).toBe(3 / 8);
    expect(s.rateLimitRate).toBe(2 / 8);
  });
});

describe("summarizeRun on an open loop", () => {
  // Levels 1..5 offer 0.5, 1, 2, 4 and 8 requests/s; aggregate stops rising past 2 requests/s.
  const rates = [0.5, 1, 2, 4, 8];
  const aggregates = [100, 190, 350, 380, 390];
  const open = () => rates.map((r, i) => rateLevel(i + 1, r, aggregates[i] as number));

  it("puts the knee in offered rate and has no concurrency knee", () => {
    const s = summarizeRun(open());
    expect(SummarySchema.parse(s)).toEqual(s);
    expect(s.kneeConcurrency).toBeNull();
    expect(s.kneeRequestsPerSecond).toBe(2);
    expect(s.saturated).toBe(true);
    expect(s.peak).toEqual({
      level: 5,
      load: { kind: "open", arrival: "poisson", ratePerSecond: 8 },
      aggregateOutputTokensPerSecond: 390,
      perStreamOutputTokensPerSecond: 60,
      // An open loop keeps no N in flight: its aggregate is its headline, no window to mark.
      window: null,
    });
    expect(s.singleStream).toBeNull();
    expect(s.scalingEfficiency).toBeNull();
    expect(s.capacity).toBeNull();
    expect(s.capacityRequestsPerSecond).toBe(8);
    expect(s.goodputPeak).toEqual({
      level: 5,
      load: { kind: "open", arrival: "poisson", ratePerSecond: 8 },
      goodputOutputTokensPerSecond: 390,
    });
  });

  it("walks the levels by rate, not by their numbers", () => {
    // Level numbers against the rates: read by number, the knee would be level 1 (rate 8).
    const levels = [rateLevel(1, 8, 400), rateLevel(2, 1, 100), rateLevel(3, 2, 200), rateLevel(4, 4, 390)];
    const s = summarizeRun(levels);
    expect(s.kneeRequestsPerSecond).toBe(4);
    expect(s.kneeConcurrency).toBeNull();
    expect(s.peak?.load).toEqual({ kind: "open", arrival: "poisson", ratePerSecond: 8 });
    expect(s.peak?.level).toBe(1);
  });

  it("has a null rate knee while aggregate still climbs at the top rate", () => {
    const s = summarizeRun(rates.map((r, i) => rateLevel(i + 1, r, 100 * r)));
    expect(s.kneeRequestsPerSecond).toBeNull();
    expect(s.kneeConcurrency).toBeNull();
    expect(s.saturated).toBe(false);
    expect(Object.keys(s)).toContain("kneeRequestsPerSecond");
  });

  it("leaves a closed loop's summary without any rate field", () => {
    const s = summarizeRun([1, 2, 4].map((n) => levelWith(n, [100, 190, 200][Math.log2(n)] as number)));
    expect(s.kneeConcurrency).toBe(2);
    expect(Object.keys(s)).toEqual([
      "singleStream",
      "peak",
      "kneeConcurrency",
      "saturated",
      "scalingEfficiency",
      "errorRate",
      "rateLimitRate",
      "valid",
      "capacity",
      "capacityRequestsPerSecond",
      "capacityBracket",
      "goodputPeak",
      "stop",
      "search",
    ]);
    expect(Object.keys(s.peak ?? {})).toEqual([
      "level",
      "load",
      "aggregateOutputTokensPerSecond",
      "perStreamOutputTokensPerSecond",
      "window",
    ]);
    expect(Object.keys(s.goodputPeak ?? {})).toEqual(["level", "load", "goodputOutputTokensPerSecond"]);
  });

  it("names an open loop's stop by its rate, not by the level's number", () => {
    const limited = summarizeLevel({
      level: 3,
      load: { kind: "open", arrival: "poisson", ratePerSecond: 4 },
      samples: [sample(), failed("rate_limited")],
      achievedConcurrency: 1,
      schedule: {
        achievedRatePerSecond: 4,
        inFlightMean: 1,
        inFlightMax: 2,
        scheduleLagsMs: [0.1],
        maxInFlight: 256,
        maxInFlightHit: false,
      },
      ...levelDefaults,
    });
    const s = summarizeRun([rateLevel(1, 1, 100), rateLevel(2, 2, 190), limited]);
    expect(s.stop).toEqual({
      level: 3,
      load: { kind: "open", arrival: "poisson", ratePerSecond: 4 },
      reason: "rate_limited",
      detail: "rate-limited from 4 req/s: 1 of 2 requests got 429 (50 %, over 5 %); the sweep ran no higher level",
    });
    expect(stopLabel(s.stop as Stop)).toBe("rate-limited from 4 req/s");
    expect(stopLabel({ level: 4, load: { kind: "closed", concurrency: 8 }, reason: "failures", detail: "" })).toBe(
      "failing from N=8",
    );
  });
});

describe("capacity and goodput peak", () => {
  const at = (concurrency: number, tokensPerSecond: number, valid = true) => {
    const l = summarizeLevel({
      load: { kind: "closed", concurrency },
      samples: [sample({ completionTokens: 100 * concurrency, outputTokensPerSecond: tokensPerSecond })],
      wallTimeMs: 1000,
      achievedConcurrency: concurrency,
      eventLoopLagP99Ms: valid ? 1 : 50,
      slo: { minOutputTokensPerSecond: 50, maxTtftMs: 2000 },
    });
    return l;
  };

  it("is the highest valid level that meets the SLO, and the valid level with the most goodput", () => {
    const s = summarizeRun([at(1, 90), at(2, 70), at(4, 55), at(8, 40), at(16, 60, false)]);
    expect(s.capacity).toBe(4);
    expect(s.goodputPeak).toMatchObject({
      load: { kind: "closed", concurrency: 4 },
      goodputOutputTokensPerSecond: 400,
    });
  });

  it("is null when no level meets the SLO", () => {
    const s = summarizeRun([at(1, 10), at(2, 5)]);
    expect(s.capacity).toBeNull();
    expect(s.goodputPeak).toBeNull();
  });
});
