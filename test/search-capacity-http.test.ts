/**
 * @module The capacity search over real HTTP (issue 44, "a route with a known capacity"): the batch
 * decoder of `@kneeboard/test-support/batch-server` on the system clock (16 sequences decode at once,
 * more queue; a step of 20 + 4 x active ms, +-5 % seeded jitter; one request in 200 cut or ended by
 * an SSE error event), searched by the real client. A closed loop of N users measures 1000 / (20 + 4N)
 * tok/s a stream: 27.8, 25.0, 22.7 at N = 4, 5, 6 (28.1 and 25.2 measured at 4 and 5), so at 24 tok/s
 * the capacity is 5. Answers of 16 tokens, not the in-memory tests' 32: the same speeds in half the
 * wall time, most of which is N = 1's 64 requests one after another (49 s of 83 at 32 tokens).
 * Counts and decisions against the server's own, no wall-clock thresholds; the client's health watch is
 * calm, so a busy machine does not decide the outcome (its figures are what the search judges).
 */
import { loadPosition } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { startBatchServer } from "@kneeboard/test-support/batch-server";
import { describe, expect, it } from "vitest";
import { calm, expectBrokenAccounted, loads, measured, ROUTE, SLO, setup } from "./search-harness.ts";

describe("the search over real HTTP", () => {
  it("4 to 8: capacity 5 (bracket [5, 6]) where the ladder 4, 8 says 4; it spent what the server received, warm-ups included", async () => {
    // From 4, not 1: N = 1 and 2 are far above the SLO (in-memory tests search them). The sweep still
    // measures N = 1 first, for the single-stream figure, outside the search. Seed 3 cuts one connection
    // of the run's; the client's next request has 5 ms to reach the server before a step's sequences are taken.
    const server = await startBatchServer({ ...ROUTE, admitWindowMs: 5, seed: 3 });
    try {
      const doc = await runSweep({
        // A budget over the ladder 4, 8's 130: the four probes' ramps and groups need about 120, and a
        // broken stream draws a level on to its next look.
        ...setup(
          { concurrency: { search: { from: 4, to: 8, resolution: 0.1, maxRequests: 400 } }, slo: SLO, maxTokens: 16 },
          server.url,
        ),
        simulated: true,
        watchHealth: calm,
      });
      const search = doc.summary.search;
      expect(search?.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
      expect(doc.summary.capacity).toBe(5);
      // The ladder 4, 8 would say 4: 8 misses. After N = 1 alone (no probe), the search probed 4, 8,
      // then 6 (misses) and 5 (meets).
      expect(loads(doc.levels)).toEqual([1, 4, 5, 6, 8]);
      expect(doc.levels.map((l) => l.probe?.order ?? null)).toEqual([null, 2, 5, 4, 3]);
      expect(doc.levels.map((l) => l.probe?.decision ?? null)).toEqual([null, "meets", "meets", "misses", "misses"]);
      expect(doc.summary.singleStream?.outputTokensPerSecond).not.toBeNull();
      expect(doc.simulated).toBe(true);
      // What the search spent is what the server received (warm-ups included), every request a chat completion.
      const counts = server.decoder.counts;
      expect(search?.requests).toBe(counts.received);
      expect(server.httpRequests()).toBe(counts.received);
      expect(doc.samples).toHaveLength(measured(doc));
      expect(counts.closed).toBe(1);
      expectBrokenAccounted(doc, counts);
      console.log(
        `real HTTP 4..8 (N = 1 first): ${search?.requests} requests sent (ladder 4, 8: ${search?.ladderRequests});`,
        doc.levels.map((l) => `${loadPosition(l.load)}: ${l.probe?.decision} at ${l.probe?.requests}`),
        counts,
      );
    } finally {
      await server.close();
    }
  }, 180_000);
});
