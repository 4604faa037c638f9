/**
 * @module How often a searched level's TTFT decision is wrong when its TTFT limit sits on the level's
 * true TTFT p95 (docs/methodology.md#searched-levels), on the batch decoder of the capacity tests
 * (test/search-capacity.test.ts) in a manual scheduler's exact time, many seeds. The per-stream
 * minimum is 1 tok/s, met by every level at its first look, so TTFT alone decides; each search runs
 * one level (`from` = `to` = N). Counts of decisions are printed and bounded; no clock is read.
 *
 * The decoder's TTFT here is the first step after a send: a step of 20 + 4N ms off by a uniform +-5 %,
 * drawn afresh each step, so the true p95 is (20 + 4N) x 1.045 ms (41.8 at N = 5, 71.06 at N = 12; two
 * dense runs of 4000 requests each measured 41.78 and 41.77, 71.06 and 71.08). A closed loop's N users
 * start a few steps apart and keep their phases (a broken stream re-phases its user), so only 3 to 4 %
 * of a level's judged TTFTs share their step with another: the TTFTs are nearly independent, as the
 * order statistics assume, unlike per-stream speeds (the N streams in flight decode the same steps).
 */
import { type Level, loadPosition } from "@kneeboard/core/run";
import { describe, expect, it } from "vitest";
import { inMemory } from "./search-harness.ts";

/** A level's decision and the requests it drew (after its warm-up, ramp included), and the search's sends. */
interface Outcome {
  decision: string;
  requests: number;
  sent: number;
}

/** The true TTFT quantile q at N on the route: a step of 20 + 4N ms at the q point of its uniform +-5 %. */
function trueQuantile(n: number, q: number): number {
  return (20 + 4 * n) * (0.95 + 0.1 * q);
}
const trueP95 = (n: number) => trueQuantile(n, 0.95);

/** One searched level at N under a TTFT limit, per seed 1 .. `seeds`. */
async function searchedLevels(n: number, maxTtftMs: number, seeds: number): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const { doc } = await inMemory(seed, {
      // A budget over the one-level ladder's 65: the level draws to its cap where it must.
      concurrency: { search: { from: n, to: n, resolution: 0.1, maxRequests: 1000 } },
      slo: { minOutputTokensPerSecond: 1, maxTtftMs },
    });
    const level = doc.levels.find((l) => loadPosition(l.load) === n) as Level;
    out.push({
      decision: level.probe?.decision ?? "none",
      requests: level.probe?.requests ?? 0,
      sent: doc.summary.search?.requests ?? 0,
    });
  }
  return out;
}

/** Decisions counted (`meets`, `misses`, `undecided`), the requests drawn by the levels and sent by the searches. */
function tally(outcomes: readonly Outcome[]) {
  const count = (d: string) => outcomes.filter((o) => o.decision === d).length;
  return {
    meets: count("meets"),
    misses: count("misses"),
    undecided: count("undecided"),
    drawn: outcomes.reduce((a, o) => a + o.requests, 0),
    sent: outcomes.reduce((a, o) => a + o.sent, 0),
  };
}

/** "decision@requests": how many seeds ended so. */
function byDecisionAndDraw(outcomes: readonly Outcome[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) out[`${o.decision}@${o.requests}`] = (out[`${o.decision}@${o.requests}`] ?? 0) + 1;
  return out;
}

// At the default confidence 0.95 a wrong `meets` is allowed 5 % a level and a wrong `misses` 5 %, split
// between the TTFT and per-stream bounds: 2.5 % from TTFT. Each bound below is the stated rate's count
// plus 4 binomial standard errors of that count.
describe("a searched level's TTFT decision near its limit (batch decoder, closed loop)", () => {
  for (const n of [5, 12]) {
    // 200 seeds: a wrong `meets` is allowed 10 (SE 3.08): at most 22; a wrong `misses` 5 (SE 2.21): at
    // most 13. Seeds 1..200 give 6 and 4 at N = 5, 12 and 1 at N = 12 (1000 seeds: 26 and 19 at N = 5,
    // 41 and 10 at N = 12, all under the stated rates, by 1.2 to 3.5 SE). Were the N TTFTs of a round
    // one value (a server that admits a round at once), the same rule would call about 29 % of these
    // levels met at N = 5 and 63 % at N = 12 (by simulation of the decision alone), past these bounds.
    it(`N = ${n}, the limit on the true p95 (${trueP95(n).toFixed(2)} ms), 200 seeds: wrong calls within the stated rates`, async () => {
      const outcomes = await searchedLevels(n, trueP95(n), 200);
      const t = tally(outcomes);
      console.log(`N = ${n} on the TTFT limit, 200 seeds:`, t, byDecisionAndDraw(outcomes));
      expect(t.meets).toBeLessThanOrEqual(22);
      expect(t.misses).toBeLessThanOrEqual(13);
    }, 60_000);

    // The TTFTs spread +-5 % about a step, so a limit with the true p95 10 % under it is over every
    // TTFT, and one with it 10 % over is under every TTFT (at the spread's floor): each level is decided
    // at its first look that can call it (its ramp and 63 for a `meets`, its minimum for a `misses`), and
    // never wrongly. A broken stream (one in 200) counts as a miss, its TTFT as over any limit: a level
    // whose judged sends hold one draws on to its retry look (its ramp and 137, where the second largest
    // TTFT bounds p95), and one with two or more there may end undecided (seeds 1..40, after the
    // single-stream level each search runs first: 7 met at the retry look and 3 undecided at N = 5, 7
    // and 2 at N = 12; 4 undecided allowed). Never a wrong call: that holds without chance.
    it(`N = ${n}, the true p95 10 % under the limit and 10 % over it, 40 seeds each: never a wrong call, and decided but where broken streams leave it undecided`, async () => {
      const under = await searchedLevels(n, trueP95(n) / 0.9, 40);
      const over = await searchedLevels(n, trueP95(n) / 1.1, 40);
      console.log(`N = ${n}, p95 10 % under the limit:`, tally(under), byDecisionAndDraw(under));
      console.log(`N = ${n}, p95 10 % over the limit:`, tally(over), byDecisionAndDraw(over));
      expect(tally(under).misses).toBe(0);
      expect(tally(under).meets).toBeGreaterThanOrEqual(36);
      expect(tally(over).misses).toBe(40);
    }, 60_000);

    // Closer: the limit on the true p90 (the level misses: 10 % of TTFTs over it) and on the true p99 (it
    // meets). 40 seeds: a wrong `meets` is allowed 2 (SE 1.38): at most 7; a wrong `misses` 1 (SE 0.99):
    // at most 4. 200 seeds gave none of either at both N (independent TTFTs: 0.01 to 0.02 % wrong
    // `meets` at the p90; one value a round: 8 % at N = 5, 39 % at N = 12).
    it(`N = ${n}, the limit on the true p90 and on the true p99, 40 seeds each: wrong calls within the stated rates`, async () => {
      const p90 = await searchedLevels(n, trueQuantile(n, 0.9), 40);
      const p99 = await searchedLevels(n, trueQuantile(n, 0.99), 40);
      console.log(`N = ${n}, limit on the true p90:`, tally(p90), byDecisionAndDraw(p90));
      console.log(`N = ${n}, limit on the true p99:`, tally(p99), byDecisionAndDraw(p99));
      expect(tally(p90).meets).toBeLessThanOrEqual(7);
      expect(tally(p99).misses).toBeLessThanOrEqual(4);
    }, 60_000);
  }
});
