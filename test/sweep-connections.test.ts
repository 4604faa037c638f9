/**
 * @module The sweep against a reference target that closes the connection after every streamed
 * response while advertising keep-alive, as llama.cpp's `llama-server` does (issue 23: every second
 * request failed with "socket hang up"): every request ok, none sent twice, the connection figures
 * in the run document. The server reads on after its response, as llama.cpp does, so a request
 * written on a closing connection reaches it (issue 31: 105-122 received for 96 samples + 3 warm-ups):
 * it receives exactly one per sample plus the warm-ups. Beside it the keep-alive reference target,
 * whose connections are reused.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { loadPosition, RunDocument } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { type ConnectionBehaviour, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { describe, expect, it } from "vitest";

const FAST: StreamProfile = { stepBaseMs: 2, stepPerSeqMs: 0, slots: 64, prefillBaseMs: 2, prefillPerTokenMs: 0 };
const LEVELS = [1, 4, 16];
const REQUESTS = 64;
const WARMUP = 1;

async function sweepAgainst(connections: ConnectionBehaviour) {
  const server = await startReferenceServer({
    models: [{ kind: "model", id: "fast", profile: FAST }],
    recordPrompts: true,
    connections,
  });
  try {
    const config = parseConfig(
      JSON.stringify({
        targets: [{ id: "t", label: "t", baseURL: server.url, model: "fast", route: { gateway: "direct" } }],
        workload: {
          concurrency: LEVELS,
          requestsPerLevel: REQUESTS,
          warmupRequests: WARMUP,
          maxTokens: 8,
          promptTokens: 20,
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

describe("the sweep and the server's connections", () => {
  it("against a server that closes after every streamed response: 64 requests at N = 1, 4 and 16 all ok, the server receives one per sample plus the warm-ups", async () => {
    const { doc, counts, prompts } = await sweepAgainst("close-after-response");
    expect(RunDocument.parse(doc)).toEqual(doc);
    expect(doc.samples).toHaveLength(LEVELS.length * REQUESTS);
    expect(doc.samples.every((s) => s.outcome === "ok")).toBe(true);
    // No request lost, none received twice: a request went on a new connection only where not a byte
    // of it had been written on the closing one.
    const warmups = LEVELS.length * WARMUP;
    expect(counts.requests).toBe(doc.samples.length + warmups);
    expect(prompts).toHaveLength(doc.samples.length + warmups);
    expect(prompts.every((n) => n === 1)).toBe(true);
    expect(doc.samples.every((s) => s.sends === 1)).toBe(true);
    // No connection outlives its response: every sample's is new, and each is one the server accepted.
    expect(doc.samples.every((s) => s.connection === "new" && s.connectMs !== null)).toBe(true);
    expect(counts.connections).toBe(doc.samples.length + warmups);
    for (const level of doc.levels) {
      expect(level.requestsSentTwice).toBe(0);
      expect(level.newConnectionShare).toBe(1);
      const own = doc.samples.filter((s) => s.level === level.level);
      expect(level.staleSockets).toBe(own.reduce((n, s) => n + (s.staleSockets ?? 0), 0));
    }
  });

  it("against a keep-alive server: the connections are reused, at most N opened per level", async () => {
    const { doc, counts, prompts } = await sweepAgainst("keep-alive");
    expect(doc.samples.every((s) => s.outcome === "ok")).toBe(true);
    expect(counts.requests).toBe(doc.samples.length + LEVELS.length * WARMUP);
    expect(prompts.every((n) => n === 1)).toBe(true);
    // The warm-ups' connections are the pool's too: the samples open no more than the server accepted.
    expect(doc.samples.filter((s) => s.connection === "new").length).toBeLessThanOrEqual(counts.connections);
    expect(counts.connections).toBeLessThanOrEqual(LEVELS.reduce((a, b) => a + b, 0));
    for (const level of doc.levels) {
      expect(level.staleSockets).toBe(0);
      // A level's new connections are at most N of its 64 requests (the pool keeps them across levels).
      expect(level.newConnectionShare).toBeLessThanOrEqual(loadPosition(level.load) / REQUESTS);
    }
  });
});
