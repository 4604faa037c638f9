/**
 * @module The same-model test end to end, over real HTTP: a reference server serving one model's
 * reference route, a faithful twin, a quantized copy (each word's rank moved one place half the
 * time) and a copy with another tokenizer (1.25x the prompt tokens); each swept with its canary by
 * `runSweep` (none sets `canary`: it runs by default, the model having a reference route), then judged
 * by `sameModelVerdicts`. The server's words are seeded, so the completions
 * (and the verdicts) are the same on every run however the requests interleave. Nothing here is
 * timed: the verdicts and the server's counts are compared.
 */
import { canaryFor, parseConfig, workloadFor } from "@kneeboard/core/config";
import type { RunDocument } from "@kneeboard/core/run";
import { CANARY_PROMPTS, sameModelVerdicts } from "@kneeboard/core/same-model";
import { runSweep } from "@kneeboard/core/sweep";
import { type ReferenceServer, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A quick engine: the canary's 100 requests of 32 tokens take well under a second each route. */
const QUICK: StreamProfile = { stepBaseMs: 0.5, stepPerSeqMs: 0, slots: 16, prefillBaseMs: 1, prefillPerTokenMs: 0 };
const MODELS = {
  ref: QUICK,
  twin: QUICK,
  quantized: { ...QUICK, distortion: { rankShiftProbability: 0.5 } },
  // 3.2 characters a token where the others count 4: 1.25x the prompt tokens.
  tokenizer: { ...QUICK, charsPerPromptToken: 3.2 },
};

let server: ReferenceServer;
let docs: RunDocument[];

beforeAll(async () => {
  server = await startReferenceServer({
    models: Object.entries(MODELS).map(([id, profile]) => ({ kind: "model" as const, id, profile })),
    recordPrompts: true,
    seed: 34,
  });
  const config = parseConfig(
    JSON.stringify({
      targets: Object.keys(MODELS).map((id) => ({
        id,
        label: id,
        baseURL: server.url,
        model: id,
        modelKey: "m",
        route: { gateway: "direct" },
        ...(id === "ref" ? { reference: true } : {}),
      })),
      workload: { concurrency: [1], requestsPerLevel: 2, warmupRequests: 0, maxTokens: 4 },
    }),
  );
  docs = [];
  for (const target of config.targets) {
    const workload = workloadFor(config, target);
    docs.push(
      await runSweep({ target, workload, canary: canaryFor(config.targets, target, workload), simulated: true }),
    );
  }
}, 120_000);
afterAll(() => server.close());

describe("the same-model test over HTTP against the reference server", () => {
  it("stores each run's canary: 10 completions of each of the 10 prompts at temperature 1, 32 words each", () => {
    for (const doc of docs) {
      expect(doc.canary).toMatchObject({
        promptSet: CANARY_PROMPTS.name,
        temperature: 1,
        maxTokens: 32,
        stopped: null,
      });
      expect(doc.canary?.completions).toHaveLength(100);
      expect(doc.canary?.completions.every((c) => c.outcome === "ok" && c.text.trim().split(" ").length === 32)).toBe(
        true,
      );
    }
    expect(docs.map((d) => d.reference ?? false)).toEqual([true, false, false, false]);
    // The server read each canary prompt once per completion: 10 from each of the 4 routes, none twice.
    for (const prompt of CANARY_PROMPTS.prompts) expect(server.prompts.get(prompt.text)).toBe(40);
  });

  it("calls the twin same, the quantized copy differs (distribution) and the other tokenizer differs (tokenizer)", () => {
    const verdicts = sameModelVerdicts(docs);
    expect(verdicts.ref).toMatchObject({ verdict: "same", cause: "reference" });
    expect(verdicts.twin).toMatchObject({ reference: "ref", verdict: "same", cause: "no_difference", samples: 100 });
    expect(verdicts.quantized).toMatchObject({ verdict: "differs", cause: "distribution" });
    expect(verdicts.quantized?.pValue).toBeLessThan(0.01);
    expect(verdicts.tokenizer).toMatchObject({ verdict: "differs", cause: "tokenizer" });
    const ref = docs[0]?.canary?.completions[0]?.promptTokens as number;
    const other = docs[3]?.canary?.completions[0]?.promptTokens as number;
    expect(other / ref).toBeCloseTo(1.25, 1);
  });
});
