import { describe, expect, it } from "vitest";
import type { F1Answer } from "./f1.ts";
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
