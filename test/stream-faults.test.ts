/**
 * @module The sweep against a reference target whose streams break halfway, as hosted providers'
 * do: one that stalls (holds the connection open, no byte more) and one that sends OpenRouter's
 * mid-stream error event. The broken requests end as failures that say what happened, the others
 * stay ok, and the server received each request once. Counts and codes, no wall-clock thresholds.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { RunDocument } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { describe, expect, it } from "vitest";

const FAST: StreamProfile = { stepBaseMs: 2, stepPerSeqMs: 0, slots: 64, prefillBaseMs: 2, prefillPerTokenMs: 0 };
const REQUESTS = 16;
/** Every 4th request to arrive breaks after 3 tokens: with 1 warm-up first, 4 of the 16 measured. */
const EVERY = 4;
const AFTER_TOKENS = 3;

async function sweepWith(fault: "stall" | "error") {
  const server = await startReferenceServer({
    models: [
      { kind: "model", id: "m", profile: { ...FAST, midStream: { every: EVERY, afterTokens: AFTER_TOKENS, fault } } },
    ],
    recordPrompts: true,
  });
  try {
    const config = parseConfig(
      JSON.stringify({
        targets: [{ id: "t", label: "t", baseURL: server.url, model: "m", route: { gateway: "direct" } }],
        workload: {
          concurrency: [4],
          requestsPerLevel: REQUESTS,
          warmupRequests: 1,
          maxTokens: 8,
          promptTokens: 20,
          requestTimeoutSeconds: 600,
          streamIdleTimeoutSeconds: 0.3,
        },
      }),
    );
    const target = config.targets[0] as (typeof config.targets)[number];
    const doc = await runSweep({ target, workload: workloadFor(config, target), simulated: true });
    return { doc, counts: server.counts(), prompts: [...server.prompts.values()] };
  } finally {
    await server.close();
  }
}

describe("streams that break halfway", () => {
  it("a stalled stream ends as timeout once idle for streamIdleTimeoutSeconds, saying after how many tokens; the rest are ok", async () => {
    const { doc, counts, prompts } = await sweepWith("stall");
    expect(RunDocument.parse(doc)).toEqual(doc);
    expect(doc.samples).toHaveLength(REQUESTS);
    const stalled = doc.samples.filter((s) => s.outcome === "timeout");
    expect(stalled).toHaveLength(REQUESTS / EVERY);
    for (const s of stalled) {
      expect(s.error).toBe(`stream went idle: no byte for 0.3 s after ${AFTER_TOKENS} tokens (content chunks)`);
      expect(s.chunks).toBe(AFTER_TOKENS);
    }
    expect(doc.samples.filter((s) => s.outcome === "ok")).toHaveLength(REQUESTS - REQUESTS / EVERY);
    expect(doc.levels[0]?.requests).toMatchObject({ sent: REQUESTS, timeout: REQUESTS / EVERY });
    // Nothing sent twice: the server received each measured request and the warm-up once.
    expect(counts.requests).toBe(REQUESTS + 1);
    expect(prompts.every((n) => n === 1)).toBe(true);
  });

  it("a mid-stream error event (OpenRouter's, finish_reason error) is a failure carrying the provider's message", async () => {
    const { doc, counts } = await sweepWith("error");
    const failed = doc.samples.filter((s) => s.outcome !== "ok");
    expect(failed).toHaveLength(REQUESTS / EVERY);
    for (const s of failed) {
      expect(s.outcome).toBe("incomplete");
      expect(s.error).toBe("stream error: Provider returned error (code 502): the reference engine failed mid-stream");
    }
    expect(doc.levels[0]?.requests).toMatchObject({ sent: REQUESTS, ok: REQUESTS - REQUESTS / EVERY });
    expect(counts.requests).toBe(REQUESTS + 1);
  });
});
