/**
 * @module The same-model test's error rates on the reference server, over HTTP: at the default canary
 * (10 prompts x 10 completions of 32 tokens) and at the demo's (10 x 10 of 16), how often a faithful
 * twin of the reference route is called `differs` (the false-alarm rate, 1 % by design) and how often
 * a quantized copy (each written word's rank moved one place with probability 0.5, as the demo's
 * `ref-small-quantized`) is (the power). The server's words are seeded, so the figures repeat.
 * Printed, never asserted (the tests assert the bounds on generated samples).
 */
import { StreamingClient } from "@kneeboard/core/client";
import type { CanarySettings } from "@kneeboard/core/config";
import { DEFAULT_CANARY } from "@kneeboard/core/config";
import { type SameModelRun, sameModelVerdicts } from "@kneeboard/core/same-model";
import { systemScheduler } from "@kneeboard/core/scheduler";
import { runCanary } from "@kneeboard/core/sweep";
import { SMALL_QUANTIZED, type StreamProfile, startReferenceServer } from "@kneeboard/reference";

/** The distortion is the quantized reference target's; the engine is a quick one, so 300 canaries take about a minute. */
const QUICK: StreamProfile = { stepBaseMs: 0.5, stepPerSeqMs: 0, slots: 64, prefillBaseMs: 1, prefillPerTokenMs: 0 };
const SIZES: { name: string; settings: CanarySettings }[] = [
  { name: "default (10 x 10, 32 tokens)", settings: { ...DEFAULT_CANARY, concurrency: 32 } },
  {
    name: "demo (10 x 10, 16 tokens)",
    settings: { ...DEFAULT_CANARY, maxTokens: 16, concurrency: 32 },
  },
];

export async function benchSameModel(log: (line: string) => void, trials = 100): Promise<void> {
  log(`\nsame model: ${trials} trials per size over HTTP against the reference server (alpha 0.01)`);
  log("canary size                    twin called differs   quantized called differs (power)");
  for (const [index, { name, settings }] of SIZES.entries()) {
    // A fresh server per size, seeded apart: each size's draws start from nothing.
    const server = await startReferenceServer({
      models: [
        { kind: "model", id: "ref", profile: QUICK },
        { kind: "model", id: "twin", profile: QUICK },
        { kind: "model", id: "quantized", profile: { ...QUICK, distortion: SMALL_QUANTIZED.distortion } },
      ],
      seed: index + 1,
    });
    const canary = (model: string) =>
      runCanary({
        client: new StreamingClient({ baseURL: server.url, model, route: { gateway: "direct" } }),
        settings,
        workload: { requestTimeoutSeconds: 30, streamIdleTimeoutSeconds: 30 },
        scheduler: systemScheduler,
        stopReason: () => null,
      });
    try {
      let falseAlarms = 0;
      let caught = 0;
      for (let trial = 0; trial < trials; trial++) {
        const runs: SameModelRun[] = [];
        for (const model of ["ref", "twin", "quantized"])
          runs.push({ targetId: model, model: "m", reference: model === "ref", canary: await canary(model) });
        // Each route judged against the reference alone, as a model with one other route is.
        const twin = sameModelVerdicts([runs[0] as SameModelRun, runs[1] as SameModelRun]).twin;
        const quantized = sameModelVerdicts([runs[0] as SameModelRun, runs[2] as SameModelRun]).quantized;
        if (twin?.verdict === "differs") falseAlarms++;
        if (quantized?.verdict === "differs") caught++;
      }
      log(`${name.padEnd(30)} ${`${falseAlarms} / ${trials}`.padStart(19)}   ${`${caught} / ${trials}`.padStart(24)}`);
    } finally {
      await server.close();
    }
  }
}
