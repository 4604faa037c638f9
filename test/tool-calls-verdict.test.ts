/**
 * @module The tool-call verdict end to end, over real HTTP: the reference server serving the small
 * model's reference route (OpenAI's stream), a faithful twin in vLLM's stream, the sloppy route
 * (`ref-small-sloppy`, breaking calls at seeded rates) and a route that refuses tools; each swept by
 * `runSweep` with the tool-call phase on at its defaults (tools-v1, 4 samples a prompt), stored,
 * indexed and judged as `kneeboard check` judges (`evaluateStore`). The server's answers are seeded,
 * so the shares and the verdicts are the same on every run. Nothing here is timed.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig, toolCallsFor, workloadFor } from "@kneeboard/core/config";
import { evaluateStore } from "@kneeboard/core/regress/check";
import type { RunDocument } from "@kneeboard/core/run";
import { saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { runSweep } from "@kneeboard/core/sweep";
import { TOOLS_V1 } from "@kneeboard/core/tool-calls";
import {
  type ReferenceServer,
  SMALL_PRICED,
  SMALL_SLOPPY,
  type StreamProfile,
  startReferenceServer,
} from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A quicker engine than the profiles' own, with their tool behaviour. */
const QUICK = { stepBaseMs: 0.5, stepPerSeqMs: 0, slots: 16, prefillBaseMs: 1, prefillPerTokenMs: 0 };
const MODELS: Record<string, StreamProfile> = {
  "ref-small-priced": { ...QUICK, tools: SMALL_PRICED.tools },
  "ref-small-twin": { ...QUICK, tools: { dialect: "vllm" } },
  "ref-small-sloppy": { ...QUICK, tools: SMALL_SLOPPY.tools },
  "ref-small-no-tools": { ...QUICK, tools: { refuse: true } },
};

let server: ReferenceServer;
let root: string;
let docs: RunDocument[];

beforeAll(async () => {
  server = await startReferenceServer({
    models: Object.entries(MODELS).map(([id, profile]) => ({ kind: "model" as const, id, profile })),
    seed: 45,
  });
  root = await mkdtemp(join(tmpdir(), "kneeboard-tool-verdict-"));
  const config = parseConfig(
    JSON.stringify({
      targets: Object.keys(MODELS).map((id) => ({
        id,
        label: id,
        baseURL: server.url,
        model: id,
        modelKey: "ref-small",
        route: { gateway: "direct" },
        ...(id === "ref-small-priced" ? { reference: true } : {}),
      })),
      workload: {
        concurrency: [1],
        requestsPerLevel: 2,
        warmupRequests: 0,
        maxTokens: 4,
        canary: false,
        toolCalls: true,
      },
    }),
  );
  docs = [];
  for (const target of config.targets) {
    const workload = workloadFor(config, target);
    docs.push(await runSweep({ target, workload, toolCalls: toolCallsFor(workload), simulated: true }));
  }
}, 120_000);
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

describe("the tool-call verdict over HTTP against the reference server", () => {
  it("runs the phase at its defaults on every route, and records the refusing route as no tool support", () => {
    for (const doc of docs.slice(0, 3)) {
      expect(doc.toolCalls).toMatchObject({ suite: TOOLS_V1.id, samplesPerPrompt: 4, support: "supported" });
      expect(doc.toolCalls?.answers).toHaveLength(TOOLS_V1.prompts.length * 4);
    }
    // The refusing route: its levels measured as the others' (the sweep went on), its phase stopped at the refusal.
    expect(docs[3]?.toolCalls?.support).toBe("no-tool-support");
    expect(docs[3]?.toolCalls?.answers.every((a) => a.outcome === "http_error" && a.httpStatus === 400)).toBe(true);
    expect(docs[3]?.toolCalls?.supportDetail).toMatch(/400/);
    expect(docs[3]?.levels).toHaveLength(docs[0]?.levels.length as number);
    expect(server.toolRefusals).toBe(docs[3]?.toolCalls?.requests);
  });

  it("reports the sloppy route's shares as the server's own log counts them", () => {
    const sloppy = docs[2]?.toolCalls;
    const log = server.toolAnswers.filter((a) => a.model === "ref-small-sloppy");
    expect(log).toHaveLength(TOOLS_V1.prompts.length * 4);
    // An answer stopped after its calls is scored wrong on finishReason; the log says how many were.
    const stopped = log.filter((a) => a.breakages.includes("stopAfterCall")).length;
    const withCalls = log.filter((a) => a.calls.length > 0).length;
    expect(sloppy?.shares.finishReason).toMatchObject({ trials: log.length, successes: log.length - stopped });
    expect(sloppy?.shares.argumentsParse).toMatchObject({
      trials: withCalls,
      successes: withCalls - log.filter((a) => a.breakages.includes("truncatedArguments")).length,
    });
    // The suite's expected arguments are valid: an answer's arguments are invalid exactly when one of the three argument breakages hit it.
    const argumentBreakages = ["truncatedArguments", "missingRequired", "enumOutside"];
    expect(sloppy?.shares.argumentsValid).toMatchObject({
      trials: withCalls,
      successes: withCalls - log.filter((a) => a.breakages.some((b) => argumentBreakages.includes(b))).length,
    });
    // A dropped second call leaves the wrong set of tools only where the two expected tools differ.
    const twoTools = new Set(
      TOOLS_V1.prompts.filter((p) => new Set(p.expected.map((e) => e.name)).size === 2).map((p) => p.id),
    );
    expect(sloppy?.shares.rightTool).toMatchObject({
      trials: withCalls,
      successes:
        withCalls -
        log.filter((a) => twoTools.has(a.promptId ?? "") && a.breakages.includes("dropSecondParallel")).length,
    });
    const parallel = new Set(TOOLS_V1.prompts.filter((p) => p.kind === "parallel").map((p) => p.id));
    expect(sloppy?.shares.parallelBoth).toMatchObject({
      trials: parallel.size * 4,
      successes: parallel.size * 4 - log.filter((a) => a.breakages.includes("dropSecondParallel")).length,
    });
  });

  it("judges the twin `same` and the sloppy route `worse` against the reference, as `kneeboard check` records them", async () => {
    const store = new FolderStore(root);
    const index = new StoreRunIndex(store);
    for (const doc of docs) await saveRun(store, index, doc);
    await evaluateStore({ store, index, now: "2026-12-07T00:00:00Z" });
    const verdicts = Object.fromEntries((await index.entries()).map((e) => [e.targetId, e.toolCallsVerdict]));
    expect(verdicts["ref-small-priced"]).toMatchObject({ verdict: "same", cause: "reference" });
    expect(verdicts["ref-small-twin"]).toMatchObject({ verdict: "same", cause: "no_difference", f1: 1 });
    expect(verdicts["ref-small-sloppy"]).toMatchObject({ verdict: "worse", reference: "ref-small-priced" });
    expect(verdicts["ref-small-sloppy"]?.pValues.argumentsValid).toBeLessThan(0.01);
    expect(verdicts["ref-small-sloppy"]?.f1).toBeLessThan(0.9);
    expect(verdicts["ref-small-no-tools"]).toMatchObject({ verdict: "no-tool-support" });
  });
});
