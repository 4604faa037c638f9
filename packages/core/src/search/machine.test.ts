/** @module The search as a state machine, without a server: the loads it asks for, its brackets and its stops, on curves of known shape. */
import { describe, expect, it } from "vitest";
import { LoadSearch, type ProbedFigures, type SearchBounds } from "./machine.ts";

/**
 * The server in closed form: 16 sequences decoded at once (more queue), per-stream speed
 * 1000 / (20 + 4 x active) tok/s, 32 tokens an answer, SLO 24 tok/s: meets up to N = 5, knee at 10.
 */
function server(n: number, minPerStream = 24): ProbedFigures {
  const active = Math.min(n, 16);
  const perStream = 1000 / (20 + 4 * active);
  const serviceMs = (32 / perStream) * 1000;
  return {
    load: n,
    decision: perStream >= minPerStream ? "meets" : "misses",
    valid: true,
    aggregate: active * perStream,
    // Past 16 a request waits for a slot: about (n / 16 - 1) services.
    ttftP50Ms: 20 + 4 * active + (n > 16 ? (n / 16 - 1) * serviceMs : 0),
  };
}

/** Runs a search to its end against `figures`, returning the loads in the order asked. */
function run(bounds: SearchBounds, figures: (load: number) => ProbedFigures): { order: number[]; search: LoadSearch } {
  const search = new LoadSearch(bounds);
  const order: number[] = [];
  for (let load = search.next(); load !== null; load = search.next()) {
    order.push(load);
    expect(order.length).toBeLessThan(40);
    search.record(figures(load));
  }
  return { order, search };
}

const users = (extra: Partial<SearchBounds> = {}): SearchBounds => ({
  from: 1,
  to: 64,
  resolution: 0.1,
  whole: true,
  ...extra,
});

describe("LoadSearch", () => {
  it("brackets by doubling, bisects capacity to 5 and the knee to 10 on the issue's server", () => {
    const { order, search } = run(users(), (n) => server(n));
    expect(order).toEqual([1, 2, 4, 8, 16, 32, 6, 5, 12, 10, 9]);
    const outcome = search.outcome();
    expect(outcome.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
    expect(outcome.knee).toEqual({ value: 10, lo: 9, hi: 10, status: "found" });
    expect(outcome.stop.reason).toBe("resolved");
  });

  it("agrees with today's knee on a dense ladder of the same server", async () => {
    const { kneeIndex } = await import("../metrics/index.ts");
    const dense = Array.from({ length: 64 }, (_, i) => server(i + 1));
    const k = kneeIndex(dense.map((f) => f.aggregate as number)) as number;
    expect(dense[k]?.load).toBe(10);
  });

  it("reports capacity at to when every level meets, and stops there", () => {
    const { order, search } = run(users({ to: 8 }), (n) => server(n, 1));
    expect(order).toEqual([1, 2, 4, 8]);
    expect(search.outcome().capacity).toEqual({ value: 8, lo: 8, hi: null, status: "at_to" });
    expect(search.outcome().stop.reason).toBe("reached_to");
  });

  it("says below_from when from already misses", () => {
    const { order, search } = run(users({ from: 8, to: 8 }), (n) => server(n));
    expect(order).toEqual([8]);
    expect(search.outcome().capacity).toEqual({ value: null, lo: null, hi: 8, status: "below_from" });
    expect(search.outcome().stop).toEqual({
      reason: "below_from",
      detail: "the lowest level probed (8) missed the SLO, so no load met the SLO",
    });
  });

  it("says the lowest level was invalid, not missed, when it could not be judged valid", () => {
    const { order, search } = run(users({ from: 8, to: 64 }), (n) => ({ ...server(n, 1), valid: false }));
    expect(order).toEqual([8]);
    expect(search.outcome().stop).toEqual({
      reason: "below_from",
      detail: "the lowest level probed (8) was invalid, so no load met the SLO",
    });
  });

  it("bisects rates geometrically to the relative resolution", () => {
    // Sustains up to 3.2 req/s; the aggregate grows with the rate, flattening past 6.
    const rate = (r: number): ProbedFigures => ({
      load: r,
      decision: r <= 3.2 ? "meets" : "misses",
      valid: true,
      aggregate: Math.min(r, 6) * 32,
      ttftP50Ms: 100,
    });
    const { order, search } = run({ from: 0.5, to: 200, resolution: 0.1, whole: false }, rate);
    expect(order.slice(0, 5)).toEqual([0.5, 1, 2, 4, 8]);
    const { capacity } = search.outcome();
    expect(capacity.status).toBe("found");
    expect(capacity.lo as number).toBeLessThanOrEqual(3.2);
    expect(capacity.hi as number).toBeGreaterThan(3.2);
    expect(capacity.hi as number).toBeLessThanOrEqual((capacity.lo as number) * 1.1);
  });

  it("ends the bracket early on over-saturation: TTFT rising, aggregate flat", () => {
    // The SLO is loose (everything meets) and the server queues past 16: TTFT climbs, aggregate flat.
    const { order, search } = run(users({ to: 1024 }), (n) => server(n, 1));
    expect(order.slice(0, 7)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(Math.max(...order)).toBe(64);
    const { stop, capacity } = search.outcome();
    expect(stop.reason).toBe("over_saturation");
    expect(stop.detail).toContain("TTFT p50 rose");
    expect(capacity.status).toBe("not_reached");
  });

  it("keeps an undecided level as the bracket's top and says so", () => {
    const figures = (n: number): ProbedFigures => (n === 6 ? { ...server(n), decision: "undecided" } : server(n));
    const { search } = run(users(), figures);
    expect(search.outcome().capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "undecided" });
    expect(search.outcome().stop.reason).toBe("undecided");
  });

  it("ends the bracket at an invalid level and treats it as past the boundary", () => {
    const figures = (n: number): ProbedFigures => (n >= 16 ? { ...server(n), valid: false } : server(n));
    const { order, search } = run(users(), figures);
    expect(order.slice(0, 4)).toEqual([1, 2, 4, 8]);
    expect(order).toContain(16);
    expect(order).not.toContain(32);
    expect(search.outcome().capacity.value).toBe(5);
  });

  it("asks for nothing more once the sweep imposes a stop, and keeps its reason", () => {
    const search = new LoadSearch(users());
    expect(search.next()).toBe(1);
    search.record(server(1));
    search.impose({ reason: "rate_limited", detail: "429s" });
    expect(search.next()).toBeNull();
    expect(search.outcome().stop).toEqual({ reason: "rate_limited", detail: "429s" });
    expect(search.outcome().capacity.status).toBe("not_reached");
  });
});

describe("LoadSearch never runs a load twice", () => {
  it("bisects around a level the knee's curve leaves out (invalid), and stops when the bracket cannot narrow", () => {
    // The demo's defect: 13, inside the knee's gap [12, 14], came out invalid each time, stayed off
    // the knee's curve, and the gap asked for 13 again (five times, orders 9 to 13).
    const figures = (n: number): ProbedFigures => (n === 13 ? { ...server(n), valid: false } : kneeAt13(n));
    const { order, search } = run(users(), figures);
    expect(new Set(order).size).toBe(order.length);
    expect(order.filter((n) => n === 13)).toHaveLength(1);
    const { knee, stop } = search.outcome();
    expect(knee).toEqual({ value: 14, lo: 12, hi: 14, status: "not_reached" });
    expect(stop.detail).toContain("can narrow no further");
  });

  it("takes the other half of a gap whose middle was probed and left off the curve", () => {
    // 12, the middle of the knee's gap [8, 16], is invalid: the search bisects [8, 12] and [12, 16] instead.
    const figures = (n: number): ProbedFigures => (n === 12 ? { ...server(n), valid: false } : server(n));
    const { order, search } = run(users(), figures);
    expect(new Set(order).size).toBe(order.length);
    expect(search.outcome().knee).toEqual({ value: 10, lo: 9, hi: 10, status: "found" });
  });

  it("asks for no load it has probed, whatever the figures (seeded random curves)", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 200; trial++) {
      const { order } = run(users(), (n) => ({
        ...server(n),
        valid: random() > 0.2,
        aggregate: server(n).aggregate === null ? null : (server(n).aggregate as number) * (0.8 + 0.4 * random()),
        decision: random() < 0.1 ? "undecided" : server(n).decision,
      }));
      expect(new Set(order).size).toBe(order.length);
    }
  });
});

/** A curve whose knee sits at 14 (flat from there), the aggregate rising by 20 % a user below it. */
function kneeAt13(n: number): ProbedFigures {
  const aggregate = n >= 14 ? 200 : 200 / 1.2 ** (14 - n);
  return { ...server(n), aggregate, ttftP50Ms: 50 };
}
