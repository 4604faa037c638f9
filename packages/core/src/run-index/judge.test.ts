import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunDocument, ToolCalls } from "../run/index.ts";
import { FolderStore } from "../store/folder.ts";
import { syntheticRun } from "../synthetic/index.ts";
import { scoreAnswer, sharesOf, TOOLS_V2, type ToolPrompt } from "../tool-calls/index.ts";
import { phaseOf } from "../tool-calls/simulate.test-helpers.ts";
import { saveRun } from "./index.ts";
import { judgeToolCallRuns } from "./judge.ts";
import { StoreRunIndex } from "./store.ts";

/** A tool-call phase over tools-v2 (one answer a prompt) with its first `broken` prompts broken, or refused. */
function toolCalls(broken: number, support: ToolCalls["support"] = "supported"): ToolCalls {
  const phase = phaseOf(TOOLS_V2, (_, i) => (i < broken ? "broken" : "right"), 1);
  const byId = new Map(TOOLS_V2.prompts.map((p) => [p.id, p]));
  const answers = support === "supported" ? (phase.answers as ToolCalls["answers"]) : [];
  return {
    suite: TOOLS_V2.id,
    samplesPerPrompt: 1,
    concurrency: 4,
    temperature: 0,
    maxTokens: 256,
    support,
    supportDetail: support === "supported" ? null : "HTTP 400: tools are not supported by this model",
    requests: support === "supported" ? answers.length : 3,
    failed: 0,
    shares: sharesOf(answers.map((a) => scoreAnswer(byId.get(a.promptId) as ToolPrompt, a))),
    answers,
    stopped: null,
  };
}

function run(targetId: string, startedAt: string, phase: ToolCalls | null, reference = false): RunDocument {
  const doc = syntheticRun({
    targetId,
    model: "m",
    startedAt,
    runId: `${targetId}-${startedAt.slice(0, 10)}`,
    concurrency: [1],
    singleStreamTokensPerSecond: 50,
    ttftMs: 100,
    saturationStreams: 4,
  });
  return { ...doc, toolCalls: phase, ...(reference ? { reference: true } : {}) };
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "kneeboard-judge-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("judgeToolCallRuns", () => {
  it("records each tool-call run's verdict once, against the reference's latest tool-call run started by then", async () => {
    const store = new FolderStore(root);
    const index = new StoreRunIndex(store);
    // Before the reference had a tool-call run (no run marks a reference yet); then the reference; then a worse run, and a refusal; a plain run.
    await saveRun(store, index, run("route", "2026-12-01T00:00:00Z", toolCalls(20)));
    await saveRun(store, index, run("ref", "2026-12-02T00:00:00Z", toolCalls(0), true));
    await saveRun(store, index, run("route", "2026-12-03T00:00:00Z", toolCalls(20)));
    await saveRun(store, index, run("refusing", "2026-12-03T01:00:00Z", toolCalls(0, "no-tool-support")));
    await saveRun(store, index, run("plain", "2026-12-03T02:00:00Z", null));

    const entries = await judgeToolCallRuns({ store, index, entries: await index.entries() });
    const verdictOf = (targetId: string, day: string) =>
      entries.find((e) => e.targetId === targetId && e.startedAt.startsWith(day))?.toolCallsVerdict;
    expect(verdictOf("route", "2026-12-01")).toMatchObject({ verdict: "no-reference", cause: "no_reference" });
    expect(verdictOf("ref", "2026-12-02")).toMatchObject({ verdict: "same", cause: "reference" });
    expect(verdictOf("route", "2026-12-03")).toMatchObject({
      verdict: "worse",
      cause: "lower",
      reference: "ref",
      runId: "route-2026-12-03",
      referenceRunId: "ref-2026-12-02",
    });
    // The other judged route (the refusing one) is in the model but not tested: Holm over one route's 10 tests.
    expect(verdictOf("route", "2026-12-03")?.reason).toMatch(/Holm over 10 tests/);
    expect(verdictOf("refusing", "2026-12-03")).toMatchObject({ verdict: "no-tool-support" });
    expect(entries.find((e) => e.targetId === "plain")?.toolCallsVerdict).toBeUndefined();

    // Recorded on the index, and never judged again: a later reference run changes no earlier verdict.
    const stored = await index.entries();
    expect(stored.filter((e) => e.toolCallsVerdict)).toHaveLength(4);
    expect(stored.find((e) => e.targetId === "route" && e.startedAt.startsWith("2026-12-03"))?.toolCalls).toMatchObject(
      {
        suite: "tools-v2",
        support: "supported",
        // The first 20 prompts are tools-v1's first: 15 need calls, and their arguments were cut short.
        shares: { argumentsValid: { successes: 60, trials: 75 } },
      },
    );
    await saveRun(store, index, run("ref", "2026-12-04T00:00:00Z", toolCalls(20), true));
    const again = await judgeToolCallRuns({ store, index, entries: await index.entries() });
    expect(
      again.find((e) => e.targetId === "route" && e.startedAt.startsWith("2026-12-03"))?.toolCallsVerdict?.verdict,
    ).toBe("worse");
    expect(again.filter((e) => e.toolCallsVerdict)).toHaveLength(5);
  });
});
