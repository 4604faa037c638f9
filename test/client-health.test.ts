/**
 * @module The client-health flag against the reference server's own record: a client slowed on
 * purpose (CPU burnt per clock read, i.e. per socket read) bends TTFT and per-stream figures past
 * kneeboard's tolerance from some concurrency on, and `client.limited` must flip by that level, and
 * at most two levels (a factor of 4 in N) before it. The flag is built to err early (a doubtful level
 * is flagged rather than ranked: see `metrics/validity.ts`), never late; on a 2-core machine it has
 * led the measured bend by one or two levels, the bend coming at N = 128 to 512.
 */

import { startReferenceProcess } from "@kneeboard/reference/process";
import { describe, expect, it } from "vitest";
import { measuredLevel } from "../bench/client.ts";

const PROFILE = { stepBaseMs: 10, stepPerSeqMs: 0, slots: 4096, prefillBaseMs: 5, prefillPerTokenMs: 0 };
/** Up to 512 only while the bend or the flag is still to come. */
const LEVELS = [1, 4, 16, 32, 64, 128, 256, 512];
/** CPU burnt per clock reading (about one per socket read), ms of an idle core. */
const BURN_MS = 0.5;

describe("client.limited", () => {
  it("flips by the level where the client's own delay bends TTFT or per-stream beyond tolerance, at most two levels before", async () => {
    const server = await startReferenceProcess([{ kind: "model", id: "bench", profile: PROFILE }]);
    try {
      const rows: { n: number; within: boolean; limited: boolean; ttftErrorMs: number; perStreamError: number }[] = [];
      for (const n of LEVELS) {
        const { level, error } = await measuredLevel(server, n, {
          requests: Math.max(12, 2 * n),
          maxTokens: 100,
          burnMsPerRead: BURN_MS,
        });
        const { ttftErrorMs, perStreamError } = error;
        rows.push({ n, within: error.withinTolerance, limited: level.client.limited, ttftErrorMs, perStreamError });
        // Past the bend once in both: no need to go higher.
        if (!error.withinTolerance && level.client.limited) break;
      }
      const firstBent = rows.findIndex((r) => !r.within);
      const firstLimited = rows.findIndex((r) => r.limited);
      // The burn bends the figures somewhere in the ladder, not at its first step (the test would prove nothing).
      const seen = JSON.stringify(rows);
      expect(firstBent, seen).toBeGreaterThan(0);
      expect(firstLimited, seen).toBeGreaterThan(0);
      // Never late: a level whose figures the client bent is never ranked as sound.
      expect(firstLimited, seen).toBeLessThanOrEqual(firstBent);
      expect(firstBent - firstLimited, seen).toBeLessThanOrEqual(2);
    } finally {
      await server.close();
    }
  }, 180_000);
});
