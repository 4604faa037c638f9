/** @module Scenarios: named workload overrides, merged on top of a target's workload, and every invalid form named by its path. */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/index.ts";
import { DEFAULT_SCENARIO, parseConfig, scenarioNames, scenariosOf, workloadFor } from "./index.ts";

const target = (extra: Record<string, unknown> = {}) => ({
  id: "llama-8b",
  label: "Llama",
  baseURL: "http://127.0.0.1:1/v1",
  model: "llama-3.1-8b-instruct",
  route: { gateway: "direct" },
  ...extra,
});
const parse = (config: unknown) => parseConfig(JSON.stringify(config), { env: {} });
const problemsOf = (config: unknown) => {
  try {
    parse(config);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("config was accepted");
};
const example = {
  chat: {},
  rag: { promptTokens: 4000, maxTokens: 256 },
  "long-context": { promptTokens: 32000, maxTokens: 256, concurrency: [1, 2, 4, 8] },
};

describe("scenarios", () => {
  it("default to one scenario, chat, equal to the workload", () => {
    const config = parse({ targets: [target()], workload: { maxTokens: 64 } });
    const t = config.targets[0] as never;
    expect(scenarioNames(config)).toEqual([DEFAULT_SCENARIO]);
    expect(scenariosOf(config, t)).toEqual(["chat"]);
    expect(workloadFor(config, t, "chat")).toEqual(workloadFor(config, t));
  });

  it("lists a target's scenarios, else all of the config's in its order", () => {
    const config = parse({
      targets: [target(), target({ id: "b", scenarios: ["rag", "chat"] })],
      scenarios: example,
    });
    expect(scenariosOf(config, config.targets[0] as never)).toEqual(["chat", "rag", "long-context"]);
    expect(scenariosOf(config, config.targets[1] as never)).toEqual(["rag", "chat"]);
  });

  it("apply on top of the target's workload field by field, the SLO too", () => {
    const config = parse({
      targets: [target({ workload: { maxTokens: 32, temperature: 1, slo: { maxTtftMs: 900 } } })],
      workload: { promptTokens: 500, levelDurationSeconds: 10 },
      scenarios: {
        chat: {},
        rag: { promptTokens: 4000, requestsPerLevel: 8, slo: { minOutputTokensPerSecond: 5 } },
        "long-context": { concurrency: [1, 2], maxTokens: 256 },
      },
    });
    const t = config.targets[0] as never;
    expect(workloadFor(config, t, "chat")).toMatchObject({
      promptTokens: 500,
      maxTokens: 32,
      levelDurationSeconds: 10,
    });
    const rag = workloadFor(config, t, "rag");
    expect(rag).toMatchObject({ promptTokens: 4000, maxTokens: 32, temperature: 1, requestsPerLevel: 8 });
    expect(rag.levelDurationSeconds).toBeUndefined();
    expect(rag.slo).toEqual({ minOutputTokensPerSecond: 5, maxTtftMs: 900 });
    expect(workloadFor(config, t, "long-context")).toMatchObject({ concurrency: [1, 2], maxTokens: 256 });
    expect(() => workloadFor(config, t, "nope")).toThrow(/unknown scenario nope/);
  });

  const cases: [string, unknown, string, RegExp][] = [
    ["a name that is not a slug", { targets: [target()], scenarios: { Rag: {} } }, "scenarios.Rag", /slug/],
    ["a name with a dot", { targets: [target()], scenarios: { "r.ag": {} } }, "scenarios.r.ag", /slug/],
    [
      "a name over 64 characters",
      { targets: [target()], scenarios: { ["a".repeat(65)]: {} } },
      `scenarios.${"a".repeat(65)}`,
      /64/,
    ],
    [
      "an invalid workload field",
      { targets: [target()], scenarios: { rag: { maxTokens: 0 } } },
      "scenarios.rag.maxTokens",
      /./,
    ],
    [
      "an unknown workload field",
      { targets: [target()], scenarios: { rag: { maxTokenz: 3 } } },
      "scenarios.rag.maxTokenz",
      /unknown key/,
    ],
    [
      "an invalid SLO field",
      { targets: [target()], scenarios: { rag: { slo: { maxTtftMs: -1 } } } },
      "scenarios.rag.slo.maxTtftMs",
      /positive/,
    ],
    [
      "both count and duration",
      { targets: [target()], scenarios: { rag: { requestsPerLevel: 3, levelDurationSeconds: 3 } } },
      "scenarios.rag.levelDurationSeconds",
      /not both/,
    ],
    [
      "an unknown scenario listed by a target",
      { targets: [target({ scenarios: ["chat", "rga"] })], scenarios: { chat: {}, rag: {} } },
      "targets[0].scenarios[1]",
      /unknown scenario "rga".*chat, rag/,
    ],
    [
      "an unknown scenario, listing the config's names, invalid ones too",
      { targets: [target({ scenarios: ["nope"] })], scenarios: { chat: {}, Rag: {} } },
      "targets[0].scenarios[0]",
      /scenarios are chat, Rag$/,
    ],
    [
      "a scenario listed without scenarios in the config",
      { targets: [target({ scenarios: ["rag"] })] },
      "targets[0].scenarios[0]",
      /known|scenarios are chat/,
    ],
    [
      "a scenario listed twice by a target",
      { targets: [target({ scenarios: ["rag", "chat", "rag"] })], scenarios: { chat: {}, rag: {} } },
      "targets[0].scenarios[2]",
      /duplicate scenario rag/,
    ],
    ["an empty target list", { targets: [target({ scenarios: [] })] }, "targets[0].scenarios", /./],
    ["an empty scenarios object", { targets: [target()], scenarios: {} }, "scenarios", /at least one/],
    ["scenarios as a list", { targets: [target()], scenarios: ["chat"] }, "scenarios", /./],
  ];
  it.each(cases)("name the path of %s", (_name, config, path, message) => {
    const problem = problemsOf(config).find((p) => p.path === path);
    expect(problem, JSON.stringify(problemsOf(config))).toBeDefined();
    expect(problem?.message).toMatch(message);
  });

  it("report every scenario problem at once", () => {
    const problems = problemsOf({
      targets: [target({ scenarios: ["nope"] })],
      scenarios: { Bad: {}, rag: { promptTokens: -1 } },
    });
    expect(problems.map((p) => p.path).sort()).toEqual([
      "scenarios.Bad",
      "scenarios.rag.promptTokens",
      "targets[0].scenarios[0]",
    ]);
  });
});
