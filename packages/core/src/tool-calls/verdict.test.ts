import { describe, expect, it } from "vitest";
import { seededRandom } from "../random/index.ts";
import type { ToolCallAnswer } from "../run/index.ts";
import type { F1Answer } from "./f1.ts";
import { scoreAnswer, sharesOf } from "./measures.ts";
import { TOOLS_V1, type ToolPrompt } from "./suite.ts";
import { type ToolCallsRecord, type ToolCallsRun, ToolCallsVerdict, toolCallsVerdicts } from "./verdict.ts";

/** A tool-call record with the given argumentsValid and rightTool counts (x of n). */
function record(
  valid: [number, number],
  right: [number, number],
  more: Partial<ToolCallsRecord> = {},
): ToolCallsRecord {
  return {
    suite: "tools-v1",
    support: "supported",
    shares: {
      argumentsValid: { successes: valid[0], trials: valid[1] },
      rightTool: { successes: right[0], trials: right[1] },
    },
    answers: [],
    ...more,
  };
}

const ref = (toolCalls: ToolCallsRecord | null): ToolCallsRun => ({
  targetId: "ref",
  model: "m",
  reference: true,
  runId: "r0",
  toolCalls,
});
const route = (targetId: string, toolCalls: ToolCallsRecord | null): ToolCallsRun => ({
  targetId,
  model: "m",
  runId: `run-${targetId}`,
  toolCalls,
});

describe("the tool-call verdict's rules", () => {
  it("calls a route whose schema-valid share drops `worse`, one that keeps both shares `same`", () => {
    const v = toolCallsVerdicts([
      ref(record([64, 64], [64, 64])),
      route("bad", record([50, 64], [64, 64])),
      route("good", record([63, 64], [64, 64])),
    ]);
    expect(v.ref).toMatchObject({ verdict: "same", cause: "reference", pValues: { argumentsValid: null } });
    expect(v.bad).toMatchObject({ verdict: "worse", cause: "arguments_valid", reference: "ref", runId: "run-bad" });
    // Holm over 4 tests (2 measures x 2 routes): the smallest raw p-value is multiplied by 4.
    expect(v.bad?.pValues.argumentsValid).toBeCloseTo(4 * (v.bad?.rawPValues.argumentsValid as number), 12);
    expect(v.bad?.rawPValues.argumentsValid).toBeCloseTo(3.6735e-5, 8);
    expect(v.bad?.reason).toMatch(/schema-valid share 78 % \(50\/64\) against the reference's 100 % \(64\/64\)/);
    expect(v.good).toMatchObject({ verdict: "same", cause: "no_difference" });
    expect(v.good?.rawPValues.rightTool).toBe(1);
    for (const verdict of Object.values(v)) expect(ToolCallsVerdict.parse(verdict)).toEqual(verdict);
  });

  it("names the right-tool share when it alone drops, and both when both do", () => {
    const v = toolCallsVerdicts([
      ref(record([64, 64], [64, 64])),
      route("wrong-tool", record([64, 64], [48, 64])),
      route("both", record([48, 64], [48, 64])),
    ]);
    expect(v["wrong-tool"]).toMatchObject({ verdict: "worse", cause: "right_tool" });
    expect(v.both).toMatchObject({ verdict: "worse", cause: "arguments_valid_and_right_tool" });
  });

  it("says a drop that one route alone would show is not enough once the model's family is larger (Holm)", () => {
    // Raw p ≈ 0.0035: below 0.01 / 2 with one tested route, above 0.01 / 6 with three.
    const drop = record([57, 64], [64, 64]);
    const alone = toolCallsVerdicts([ref(record([64, 64], [64, 64])), route("r", drop)]);
    expect(alone.r?.rawPValues.argumentsValid).toBeGreaterThan(0.01 / 6);
    expect(alone.r?.verdict).toBe("worse");
    const crowd = toolCallsVerdicts([
      ref(record([64, 64], [64, 64])),
      route("r", drop),
      route("s", record([64, 64], [64, 64])),
      route("t", record([64, 64], [64, 64])),
    ]);
    expect(crowd.r?.verdict).toBe("same");
  });

  it("is one-sided: a route better than its reference is `same`", () => {
    const v = toolCallsVerdicts([ref(record([50, 64], [50, 64])), route("r", record([64, 64], [64, 64]))]);
    expect(v.r).toMatchObject({ verdict: "same", cause: "no_difference" });
    expect(v.r?.rawPValues.argumentsValid).toBeGreaterThan(0.99);
  });

  it("says no tool support, no reference, too few samples and other suites as such", () => {
    const refusing = record([0, 0], [0, 0], {
      support: "no-tool-support",
      supportDetail: "HTTP 400: tools not supported",
    });
    const ok = record([64, 64], [64, 64]);
    expect(toolCallsVerdicts([ref(ok), route("r", refusing)]).r).toMatchObject({
      verdict: "no-tool-support",
      cause: "no_tool_support",
      reason: "the route refused tools (HTTP 400: tools not supported)",
      f1: null,
    });
    expect(toolCallsVerdicts([ref(refusing)]).ref).toMatchObject({ verdict: "no-tool-support" });
    expect(toolCallsVerdicts([route("r", ok)]).r).toMatchObject({
      verdict: "no-reference",
      cause: "no_reference",
      reference: null,
    });
    expect(toolCallsVerdicts([ref(null), route("r", ok)]).r).toMatchObject({
      verdict: "no-reference",
      cause: "no_reference_run",
      referenceRunId: null,
    });
    expect(toolCallsVerdicts([ref(refusing), route("r", ok)]).r).toMatchObject({
      verdict: "no-reference",
      cause: "reference_no_tool_support",
    });
    expect(toolCallsVerdicts([ref(ok), route("r", null)]).r).toMatchObject({
      verdict: "too-few-samples",
      cause: "no_tool_calls",
      runId: null,
    });
    expect(toolCallsVerdicts([ref(ok), route("r", record([64, 64], [64, 64], { suite: "tools-v2" }))]).r).toMatchObject(
      { verdict: "too-few-samples", cause: "suite" },
    );
    // 40 trials a side in each measure: 39 on either side is too few.
    expect(toolCallsVerdicts([ref(ok), route("r", record([39, 39], [64, 64]))]).r).toMatchObject({
      verdict: "too-few-samples",
      cause: "too_few_samples",
    });
    expect(toolCallsVerdicts([ref(record([64, 64], [39, 39])), route("r", ok)]).r?.cause).toBe("too_few_samples");
    expect(toolCallsVerdicts([ref(ok), route("r", record([40, 40], [40, 40]))]).r?.verdict).toBe("same");
  });

  it("groups routes by model key, so another model's reference never judges them", () => {
    const v = toolCallsVerdicts([
      ref(record([64, 64], [64, 64])),
      { targetId: "other", model: "n", runId: "x", toolCalls: record([10, 64], [10, 64]) },
    ]);
    expect(v.other).toMatchObject({ verdict: "no-reference", cause: "no_reference" });
  });

  it("carries the F1 of the route's calls against the reference's, whatever the verdict", () => {
    const f = { name: "f", arguments: '{"a":1}' };
    const g = { name: "g", arguments: '{"b":2}' };
    const answers = (calls: F1Answer["calls"][]): F1Answer[] =>
      calls.map((c, i) => ({ promptId: `p${i}`, outcome: "ok", calls: c }));
    const v = toolCallsVerdicts([
      ref(record([64, 64], [64, 64], { answers: answers([[f], [g]]) })),
      route("r", record([64, 64], [64, 64], { answers: answers([[f], [{ name: "g", arguments: '{"b":' }]]) })),
      route("few", record([4, 4], [4, 4], { answers: answers([[f], [g]]) })),
    ]);
    // One of two calls matched: TP 1, FP 1, FN 1.
    expect(v.r?.f1).toBeCloseTo(0.5, 12);
    expect(v.few).toMatchObject({ verdict: "too-few-samples", f1: 1 });
    expect(v.ref?.f1).toBeNull();
  });
});

/**
 * One seeded run of a route over tools-v1 at the phase's defaults (24 prompts x 4 samples): every
 * expected call made, each call's arguments broken (cut short, so they no longer parse) with
 * probability `broken`, words for no-call prompts; scored by the phase's own `scoreAnswer`.
 */
function simulatedRun(random: () => number, broken: number): ToolCallsRecord {
  const answers: (ToolCallAnswer & { prompt: ToolPrompt })[] = [];
  for (const prompt of TOOLS_V1.prompts)
    for (let sample = 0; sample < SAMPLES_PER_PROMPT; sample++) {
      const calls = prompt.expected.map((e, index) => {
        const text = JSON.stringify(e.arguments);
        return {
          index,
          id: `call_${index}`,
          name: e.name,
          arguments: random() < broken ? text.slice(0, Math.floor(text.length * 0.6)) : text,
        };
      });
      answers.push({
        prompt,
        promptId: prompt.id,
        sample,
        outcome: "ok",
        httpStatus: 200,
        finishReason: calls.length > 0 ? "tool_calls" : "stop",
        calls,
        argumentsAsObject: false,
        content: calls.length > 0 ? null : prompt.responseSchema ? "{}" : "Done.",
      });
    }
  return {
    suite: TOOLS_V1.id,
    support: "supported",
    shares: sharesOf(answers.map((a) => scoreAnswer(a.prompt, a))),
    answers,
  };
}

const SAMPLES_PER_PROMPT = 4;
/** The reference's own slips: one call in 200 has broken arguments (near-deterministic at temperature 0). */
const REFERENCE_BROKEN = 0.005;

describe("the tool-call verdict at the phase's default sample sizes (tools-v1, 4 samples a prompt), 100 seeded runs", () => {
  // Trials per measure at these sizes: argumentsValid and rightTool count the answers with a call,
  // 15 prompts (10 one-call, 5 parallel) x 4 = 60 a side. A twin draws from the reference's own
  // distribution, so its false-alarm rate is at most alpha (0.01; Holm keeps the family's at 0.01):
  // 99 of 100 `same` expected, standard error 1, and the bound 95 is 4 standard errors below. (At
  // shares this near 1 the pooled test is conservative: exact enumeration gives a rate under 1e-5.)
  // Measured 100 of 100 with these seeds.
  it("calls the faithful twin of the reference `same` in at least 95 of 100", () => {
    let same = 0;
    for (let trial = 0; trial < 100; trial++) {
      const random = seededRandom(40_000 + trial);
      const verdicts = toolCallsVerdicts([
        ref(simulatedRun(random, REFERENCE_BROKEN)),
        route("twin", simulatedRun(random, REFERENCE_BROKEN)),
      ]);
      expect(verdicts.twin?.pValues.argumentsValid).not.toBeNull();
      if (verdicts.twin?.verdict === "same") same++;
    }
    expect(same).toBeGreaterThanOrEqual(95);
  });

  // 20 % of the calls broken on top of the reference's slips: a one-call answer stays valid with
  // probability 0.995 x 0.8 = 0.796, a parallel one with 0.796² = 0.634, so the route's
  // schema-valid share is about (40 x 0.796 + 20 x 0.634) / 60 = 0.742 against the reference's 0.993.
  // `worse` needs Holm's 2 x p < 0.01 (two tests: both measures of one route). Exact enumeration over
  // both sides' binomial counts gives a power of 0.990: 99 of 100 `worse` expected, standard error 1,
  // and the bound 95 is 4 standard errors below. Measured 100 of 100 with these seeds.
  it("calls a route with 20 % of its arguments broken `worse` in at least 95 of 100", () => {
    let worse = 0;
    for (let trial = 0; trial < 100; trial++) {
      const random = seededRandom(50_000 + trial);
      const verdicts = toolCallsVerdicts([
        ref(simulatedRun(random, REFERENCE_BROKEN)),
        route("broken", simulatedRun(random, 1 - (1 - REFERENCE_BROKEN) * 0.8)),
      ]);
      expect(verdicts.broken?.f1).toBeLessThan(0.95);
      if (verdicts.broken?.verdict === "worse" && verdicts.broken.cause === "arguments_valid") worse++;
    }
    expect(worse).toBeGreaterThanOrEqual(95);
  });

  it("counts 60 trials a side in both tested measures at these sizes", () => {
    const run = simulatedRun(seededRandom(1), 0);
    expect(run.shares.argumentsValid.trials).toBe(60);
    expect(run.shares.rightTool.trials).toBe(60);
  });
});
