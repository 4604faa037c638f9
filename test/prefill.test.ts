/**
 * @module Long prompts against a reference server that charges prefill per prompt token and counts
 * tokens its own way (5.7 characters each): prompts sized to within 5 % of promptTokens as the server
 * counts them, and TTFT growing by the server's prefill cost. Real time: TTFTs are judged with
 * kneeboard's TTFT tolerance (10 ms + 3 %).
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import type { RunDocument } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { type ReferenceServer, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PREFILL_PER_TOKEN_MS = 0.05;
const PROFILE: StreamProfile = {
  stepBaseMs: 2,
  stepPerSeqMs: 0,
  slots: 8,
  prefillBaseMs: 5,
  prefillPerTokenMs: PREFILL_PER_TOKEN_MS,
  charsPerPromptToken: 5.7,
};
let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({ models: [{ kind: "model", id: "prefill", profile: PROFILE }] });
});
afterAll(() => server.close());

async function sweep(promptTokens: number): Promise<RunDocument> {
  const config = parseConfig(
    JSON.stringify({
      targets: [
        { id: "prefill", label: "prefill", baseURL: server.url, model: "prefill", route: { gateway: "direct" } },
      ],
      workload: { concurrency: [1], requestsPerLevel: 8, warmupRequests: 1, maxTokens: 8, promptTokens },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  return runSweep({ target, workload: workloadFor(config, target), simulated: true });
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

  it("take TTFT up by the server's prefill cost: 4,000 tokens minus 100 within 10 ms + 3 %", async () => {
    const short = await sweep(100);
    const long = await sweep(4000);
    const ttft = (doc: RunDocument) => doc.levels[0]?.ttftMs.p50 as number;
    const prompt = (doc: RunDocument) => median(doc.samples.map((s) => s.promptTokens as number));
    const expectedMs = (prompt(long) - prompt(short)) * PREFILL_PER_TOKEN_MS;
    expect(expectedMs).toBeGreaterThan(150);
    expect(Math.abs(ttft(long) - ttft(short) - expectedMs)).toBeLessThanOrEqual(10 + 0.03 * expectedMs);
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
