/**
 * @module The bars of the tool-call verdict, end to end over real HTTP: five routes of one model on the
 * reference server, which streams tool-call deltas in fragments and logs every answer it sent. The
 * reference route (OpenAI's stream), a faithful twin (vLLM's stream), a route that breaks one answer
 * with calls in five (arguments cut short), one that answers 400 to every request with tools, and
 * one that takes the tools and answers every request in prose. Each is swept by `runSweep` with the
 * tool-call phase at its defaults (tools-v2, 4 samples a prompt), stored, indexed and judged as
 * `kneeboard check` judges (`evaluateStore`). The server's answers are seeded; nothing is timed.
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
import { REFUSAL_REQUESTS, TOOL_SUITE } from "@kneeboard/core/tool-calls";
import { type ReferenceServer, SMALL_PRICED, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A quicker engine than the profiles' own, with their tool behaviour. */
const QUICK = { stepBaseMs: 0.5, stepPerSeqMs: 0, slots: 16, prefillBaseMs: 1, prefillPerTokenMs: 0 };
const MODELS: Record<string, StreamProfile> = {
  "ref-small-priced": { ...QUICK, tools: SMALL_PRICED.tools },
  "ref-small-twin": { ...QUICK, tools: { dialect: "vllm" } },
  "ref-small-breaks": { ...QUICK, tools: { dialect: "vllm", breakages: { truncatedArguments: 0.2 } } },
  "ref-small-no-tools": { ...QUICK, tools: { refuse: true } },
  "ref-small-prose": { ...QUICK, tools: { prose: true } },
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

const logOf = (model: string) => server.toolAnswers.filter((a) => a.model === model);
const docOf = (id: string) => docs.find((d) => d.targetId === id) as RunDocument;
const needsCall = new Set(TOOL_SUITE.prompts.filter((p) => p.expected.length > 0).map((p) => p.id));

describe("the tool-call verdict's bars over HTTP: five routes of one model", () => {
  it("runs the phase at its defaults; the refusing route is no-tool-support after its first refusals, and its sweep completes", () => {
    for (const id of ["ref-small-priced", "ref-small-twin", "ref-small-breaks", "ref-small-prose"]) {
      expect(docOf(id).toolCalls).toMatchObject({ suite: "tools-v2", samplesPerPrompt: 4, support: "supported" });
      expect(docOf(id).toolCalls?.answers).toHaveLength(TOOL_SUITE.prompts.length * 4);
    }
    const refusing = docOf("ref-small-no-tools");
    expect(refusing.toolCalls).toMatchObject({ support: "no-tool-support", stopped: "the route refused tools" });
    // It stops once its first REFUSAL_REQUESTS are back; those sent meanwhile (4 in flight) were refused too.
    const sent = refusing.toolCalls?.requests as number;
    expect(sent).toBeGreaterThanOrEqual(REFUSAL_REQUESTS);
    expect(sent).toBeLessThanOrEqual(REFUSAL_REQUESTS + 4);
    expect(refusing.toolCalls?.answers.every((a) => a.outcome === "http_error" && a.httpStatus === 400)).toBe(true);
    expect(refusing.status).not.toBe("partial");
    expect(refusing.levels).toHaveLength(docOf("ref-small-priced").levels.length);
    expect(server.toolRefusals).toBe(sent);
  });

  it("reports counts equal to the server's own log", () => {
    for (const id of ["ref-small-priced", "ref-small-twin", "ref-small-breaks", "ref-small-prose"]) {
      const log = logOf(id);
      const tc = docOf(id).toolCalls;
      expect(log, id).toHaveLength(tc?.requests as number);
      expect(tc?.failed, id).toBe(log.filter((a) => a.finishReason === null).length);
      const withCalls = log.filter((a) => a.calls.length > 0).length;
      expect(tc?.answers.filter((a) => a.calls.length > 0).length, id).toBe(withCalls);
    }
    // The breaking route: an answer's arguments fail to parse exactly when the server cut them.
    const breaks = logOf("ref-small-breaks");
    const cut = breaks.filter((a) => a.breakages.includes("truncatedArguments")).length;
    const needed = breaks.filter((a) => needsCall.has(a.promptId ?? "")).length;
    expect(docOf("ref-small-breaks").toolCalls?.shares.argumentsParse).toMatchObject({
      trials: needed,
      successes: needed - cut,
    });
    // About one answer with calls in five.
    expect(cut / needed).toBeGreaterThan(0.15);
    expect(cut / needed).toBeLessThan(0.25);
    // The prose route: no call sent, so every answer that needed one fails the call and the argument measures.
    const prose = docOf("ref-small-prose").toolCalls;
    expect(logOf("ref-small-prose").every((a) => a.calls.length === 0)).toBe(true);
    for (const m of ["callWhenNeeded", "rightTool", "argumentsValid"] as const)
      expect(prose?.shares[m]).toMatchObject({ successes: 0, trials: needed });
  });

  it("judges the twin `same`, the breaking and the prose routes `worse`, the refusing route no-tool-support", async () => {
    const store = new FolderStore(root);
    const index = new StoreRunIndex(store);
    for (const doc of docs) await saveRun(store, index, doc);
    await evaluateStore({ store, index, now: "2026-12-07T00:00:00Z" });
    const verdicts = Object.fromEntries((await index.entries()).map((e) => [e.targetId, e.toolCallsVerdict]));
    expect(verdicts["ref-small-priced"]).toMatchObject({ verdict: "same", cause: "reference" });
    expect(verdicts["ref-small-twin"]).toMatchObject({ verdict: "same", cause: "no_difference", exactCallF1: 1 });
    expect(verdicts["ref-small-breaks"]).toMatchObject({ verdict: "worse", cause: "lower", triggerF1: 1 });
    expect(verdicts["ref-small-breaks"]?.lower).toEqual(expect.arrayContaining(["everyMeasure", "argumentsParse"]));
    expect(verdicts["ref-small-prose"]).toMatchObject({ verdict: "worse", cause: "stopped_calling", triggerF1: 0 });
    expect(verdicts["ref-small-no-tools"]).toMatchObject({ verdict: "no-tool-support" });
    // The paired counts the verdict carries are the server's: prompts the breaking route lost are those with a cut answer.
    const lost = new Set(
      logOf("ref-small-breaks")
        .filter((a) => a.breakages.length > 0)
        .map((a) => a.promptId),
    );
    expect(verdicts["ref-small-breaks"]?.measures.find((m) => m.measure === "argumentsParse")).toMatchObject({
      lost: lost.size,
      gained: 0,
    });
  });
});
