/** @module Config fields for readers: `modelKey` and its default, `pricing` in its two shapes, `workload.slo`; bad input named by path. */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/index.ts";
import { DEFAULT_SLO, modelKeyOf, parseConfig, workloadFor } from "./index.ts";

const target = (extra: Record<string, unknown> = {}) => ({
  id: "llama-8b-groq",
  label: "Llama",
  baseURL: "https://openrouter.ai/api/v1",
  apiKeyEnv: "OPENROUTER_API_KEY",
  model: "meta-llama/Llama-3.1-8B-Instruct",
  route: { gateway: "openrouter", provider: "groq" },
  ...extra,
});
const parse = (config: unknown) => parseConfig(JSON.stringify(config), { requireKeys: false });
const problemsOf = (config: unknown) => {
  try {
    parse(config);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("config was accepted");
};

describe("modelKey", () => {
  it("defaults to the slug of the model after its last slash", () => {
    const config = parse({ targets: [target()] });
    expect(modelKeyOf(config.targets[0] as never)).toBe("llama-3.1-8b-instruct");
    expect(modelKeyOf({ model: "llama3.1:8b" })).toBe("llama3.1-8b");
    expect(modelKeyOf({ model: "Qwen/Qwen3-235B-A22B_FP8" })).toBe("qwen3-235b-a22b_fp8");
    expect(modelKeyOf({ model: "org/" })).toBe("model");
    expect(modelKeyOf({ model: "m", modelKey: null })).toBe("m");
  });

  it("takes the configured key, so two routes can name one model", () => {
    const config = parse({
      targets: [
        target({ modelKey: "llama-3.1-8b" }),
        target({ id: "llama-8b-direct", model: "llama3.1:8b", modelKey: "llama-3.1-8b" }),
      ],
    });
    expect(config.targets.map((t) => modelKeyOf(t))).toEqual(["llama-3.1-8b", "llama-3.1-8b"]);
  });
});

describe("pricing and slo", () => {
  it("accepts both pricing shapes and merges the SLO field by field over the defaults", () => {
    const config = parse({
      targets: [
        target({ pricing: { inputPerMillionUsd: 0.05, outputPerMillionUsd: 0.08 } }),
        target({ id: "dedicated", pricing: { hourlyUsd: 2.5 }, workload: { slo: { maxTtftMs: 500 } } }),
      ],
      workload: { slo: { minOutputTokensPerSecond: 30 } },
    });
    const [api, dedicated] = config.targets as [never, never];
    expect(config.targets.map((t) => t.pricing)).toEqual([
      { inputPerMillionUsd: 0.05, outputPerMillionUsd: 0.08 },
      { hourlyUsd: 2.5 },
    ]);
    expect(workloadFor(config, api).slo).toEqual({ minOutputTokensPerSecond: 30, maxTtftMs: 2000 });
    expect(workloadFor(config, dedicated).slo).toEqual({ minOutputTokensPerSecond: 30, maxTtftMs: 500 });
    expect(workloadFor(parse({ targets: [target()] }), api).slo).toEqual(DEFAULT_SLO);
    expect(DEFAULT_SLO).toEqual({ minOutputTokensPerSecond: 20, maxTtftMs: 2000 });
  });

  it("takes maxTtftMs null as no TTFT limit, over the default, at any layer", () => {
    const config = parse({
      targets: [target(), target({ id: "limited", workload: { slo: { maxTtftMs: 800 } } })],
      workload: { slo: { minOutputTokensPerSecond: 24, maxTtftMs: null } },
    });
    const [open, limited] = config.targets as [never, never];
    expect(workloadFor(config, open).slo).toEqual({ minOutputTokensPerSecond: 24, maxTtftMs: null });
    expect(workloadFor(config, limited).slo).toEqual({ minOutputTokensPerSecond: 24, maxTtftMs: 800 });
  });

  const shape = "must be { inputPerMillionUsd, outputPerMillionUsd } or { hourlyUsd }, positive numbers (USD)";
  const cases: [string, unknown, { path: string; message: string }[]][] = [
    [
      "a modelKey that is no slug",
      { targets: [target({ modelKey: "Llama 3.1 <b>" })] },
      [
        {
          path: "targets[0].modelKey",
          message: "must be a slug: [a-z0-9][a-z0-9._-]* (lowercase letters, digits, . _ -)",
        },
      ],
    ],
    [
      "a zero hourly price",
      { targets: [target({ pricing: { hourlyUsd: 0 } })] },
      [{ path: "targets[0].pricing.hourlyUsd", message: "must be a positive number" }],
    ],
    [
      "a negative list price",
      { targets: [target({ pricing: { inputPerMillionUsd: -1, outputPerMillionUsd: 1 } })] },
      [{ path: "targets[0].pricing.inputPerMillionUsd", message: "must be a positive number" }],
    ],
    [
      "a list price without its output half",
      { targets: [target({ pricing: { inputPerMillionUsd: 1 } })] },
      [{ path: "targets[0].pricing", message: shape }],
    ],
    [
      "both shapes at once",
      { targets: [target({ pricing: { inputPerMillionUsd: 1, outputPerMillionUsd: 2, hourlyUsd: 3 } })] },
      [{ path: "targets[0].pricing", message: shape }],
    ],
    ["a price as text", { targets: [target({ pricing: "cheap" })] }, [{ path: "targets[0].pricing", message: shape }]],
    [
      "a zero SLO rate",
      { targets: [target()], workload: { slo: { minOutputTokensPerSecond: 0 } } },
      [{ path: "workload.slo.minOutputTokensPerSecond", message: "must be a positive number" }],
    ],
    [
      "a negative SLO TTFT and an unknown SLO key in a target's workload",
      { targets: [target({ workload: { slo: { maxTtftMs: -5, p99: 1 } } })] },
      [
        { path: "targets[0].workload.slo.maxTtftMs", message: "must be a positive number" },
        { path: "targets[0].workload.slo.p99", message: 'unknown key "p99"' },
      ],
    ],
  ];
  it.each(cases)("refuses %s, named by its path", (_name, config, problems) => {
    expect(problemsOf(config)).toEqual(problems);
  });
});
