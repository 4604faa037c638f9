/**
 * @module Long prompts against a reference server that charges prefill per prompt token and counts
 * tokens its own way (5.7 characters each): prompts sized to within 5 % of promptTokens as the server
 * counts them, and TTFT growing by the server's prefill cost. Real time, judged against the server's
 * record: its first tokens left no sooner than the prefill cost after arrival (a timer never fires
 * early), and the client's TTFT is within kneeboard's tolerance (10 ms + 3 %) of that record unless
 * the level flags its own client, however a loaded machine slowed either.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import type { RunDocument } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { type ReferenceServer, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { accuracyProblems, clientError, epochClock } from "@kneeboard/test-support/accuracy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PREFILL_BASE_MS = 5;
const PREFILL_PER_TOKEN_MS = 0.05;
const PROFILE: StreamProfile = {
  stepBaseMs: 2,
  stepPerSeqMs: 0,
  slots: 8,
  prefillBaseMs: PREFILL_BASE_MS,
  prefillPerTokenMs: PREFILL_PER_TOKEN_MS,
  charsPerPromptToken: 5.7,
};
let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({ models: [{ kind: "model", id: "prefill", profile: PROFILE }] });
});
afterAll(() => server.close());

async function sweep(promptTokens: number, scheduler?: ReturnType<typeof epochClock>): Promise<RunDocument> {
  const config = parseConfig(
    JSON.stringify({
      targets: [
        { id: "prefill", label: "prefill", baseURL: server.url, model: "prefill", route: { gateway: "direct" } },
      ],
      workload: { concurrency: [1], requestsPerLevel: 8, warmupRequests: 1, maxTokens: 8, promptTokens },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  return runSweep({ target, workload: workloadFor(config, target), simulated: true, scheduler });
}

/** Sweeps on the server's clock and returns the run with the server's record of it. */
async function sweepWithRecord(promptTokens: number) {
  server.takeTimings();
  const clock = epochClock();
  const doc = await sweep(promptTokens, clock);
  return { doc, timings: server.takeTimings(), originMs: clock.originMs as number };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

describe("long prompts", () => {
  it("are sized to within 5 % of promptTokens as the server counts them, once its warm-up answered", async () => {
    for (const promptTokens of [100, 4000]) {
      const doc = await sweep(promptTokens);
      const counted = doc.samples.map((s) => s.promptTokens as number);
      expect(counted).toHaveLength(8);
      for (const n of counted) expect(Math.abs(n / promptTokens - 1)).toBeLessThan(0.05);
    }
  });

  it("take TTFT up by the server's prefill cost, measured within 10 ms + 3 % of the server's record", async () => {
    const runs = [await sweepWithRecord(100), await sweepWithRecord(4000)];
    const [short, long] = runs.map((r) => r.doc) as [RunDocument, RunDocument];
    const prompt = (doc: RunDocument) => median(doc.samples.map((s) => s.promptTokens as number));
    expect((prompt(long) - prompt(short)) * PREFILL_PER_TOKEN_MS).toBeGreaterThan(150);
    for (const { doc, timings, originMs } of runs) {
      // The prefill is one timer of 5 ms + 0.05 ms a prompt token, which never fires early but for
      // 2 ms (a timer's whole ms, and the loop's cached time it counts from): the long prompts' first
      // tokens left the server over 150 ms later than the short's could.
      expect(timings).toHaveLength(9);
      for (const t of timings)
        expect((t.firstTokenAtMs as number) - t.arrivedAtMs).toBeGreaterThanOrEqual(
          PREFILL_BASE_MS + PREFILL_PER_TOKEN_MS * t.promptTokens - 2,
        );
      // What the client measured of it: the server's record, within tolerance unless the level says
      // its client was too loaded to measure it (and is right to say so).
      const level = doc.levels[0] as RunDocument["levels"][number];
      const error = clientError(doc.samples, timings, originMs);
      expect(error.matched).toBe(8);
      expect(accuracyProblems(level, error)).toEqual([]);
    }
    // Prefill tok/s per sample and per level: prompt tokens over TTFT.
    const level = long.levels[0] as RunDocument["levels"][number];
    const sample = long.samples[0] as RunDocument["samples"][number];
    expect(sample.prefillTokensPerSecond).toBeCloseTo(
      (sample.promptTokens as number) / ((sample.ttftMs as number) / 1000),
      6,
    );
    expect(level.prefillTokensPerSecond?.n).toBe(8);
    expect(level.prefillTokensPerSecond?.p50).toBeGreaterThan(0);
  });
});
