/** @module Config parsing: defaults, merging, and every kind of invalid config named by its path. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/index.ts";
import {
  canaryChoice,
  canaryFor,
  DEFAULT_CANARY,
  DEFAULT_TOOL_CALLS,
  parseConfig,
  toolCallsFor,
  workloadFor,
} from "./index.ts";
import { schemaFiles } from "./schemas.ts";

const target = (extra: Record<string, unknown> = {}) => ({
  id: "llama-8b-groq",
  label: "Llama",
  baseURL: "https://openrouter.ai/api/v1",
  apiKeyEnv: "TEST_KEY",
  model: "meta-llama/llama-3.1-8b-instruct",
  route: { gateway: "openrouter", provider: "groq" },
  ...extra,
});
const env = { TEST_KEY: "sk-very-secret-value" };
const parse = (config: unknown) => parseConfig(typeof config === "string" ? config : JSON.stringify(config), { env });
const problemsOf = (config: unknown) => {
  try {
    parse(config);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("config was accepted");
};

describe("parseConfig", () => {
  it("accepts a full config and applies defaults", () => {
    const config = parse({ targets: [target()] });
    expect(config.schedule).toBe("rate(6 hours)");
    expect(workloadFor(config, config.targets[0] as never)).toMatchObject({
      concurrency: [1, 2, 4, 8, 16, 32],
      maxTokens: 128,
      requestsPerLevel: 64,
    });
  });

  it("defaults the standing window to 72 hours and 24 runs, field by field", () => {
    expect(parse({ targets: [target()] }).standing).toEqual({ windowHours: 72, maxRuns: 24 });
    expect(parse({ targets: [target()], standing: { maxRuns: 3 } }).standing).toEqual({ windowHours: 72, maxRuns: 3 });
    expect(parse({ targets: [target()], standing: { windowHours: 1, maxRuns: 1 } }).standing).toEqual({
      windowHours: 1,
      maxRuns: 1,
    });
  });

  it("merges a target's workload field by field, a duration replacing the count", () => {
    const config = parse({
      targets: [target({ workload: { maxTokens: 32, levelDurationSeconds: 10 } })],
      workload: { promptTokens: 500 },
    });
    const w = workloadFor(config, config.targets[0] as never);
    expect(w).toMatchObject({ maxTokens: 32, promptTokens: 500, levelDurationSeconds: 10 });
    expect(w.requestsPerLevel).toBeUndefined();
  });

  const cases: [string, unknown, string][] = [
    ["bad id characters", { targets: [target({ id: "a b" })] }, "targets[0].id"],
    ["uppercase id", { targets: [target({ id: "Llama" })] }, "targets[0].id"],
    ["duplicate id", { targets: [target(), target()] }, "targets[1].id"],
    ["unknown gateway", { targets: [target({ route: { gateway: "bedrock" } })] }, "targets[0].route.gateway"],
    [
      "openrouter without provider",
      { targets: [target({ route: { gateway: "openrouter" } })] },
      "targets[0].route.provider",
    ],
    ["concurrency 0", { targets: [target()], workload: { concurrency: [0, 1] } }, "workload.concurrency[0]"],
    [
      "concurrency not ascending",
      { targets: [target()], workload: { concurrency: [1, 4, 2] } },
      "workload.concurrency[2]",
    ],
    ["empty concurrency", { targets: [target()], workload: { concurrency: [] } }, "workload.concurrency"],
    ["fractional concurrency", { targets: [target()], workload: { concurrency: [1.5] } }, "workload.concurrency[0]"],
    ["negative promptTokens", { targets: [target()], workload: { promptTokens: -1 } }, "workload.promptTokens"],
    ["maxTokens 0", { targets: [target()], workload: { maxTokens: 0 } }, "workload.maxTokens"],
    [
      "count and duration",
      { targets: [target()], workload: { requestsPerLevel: 5, levelDurationSeconds: 5 } },
      "workload.levelDurationSeconds",
    ],
    ["missing key variable", { targets: [target({ apiKeyEnv: "UNSET_KEY_VAR" })] }, "targets[0].apiKeyEnv"],
    ["invalid baseURL", { targets: [target({ baseURL: "not a url" })] }, "targets[0].baseURL"],
    ["unknown key", { targets: [target()], workload: { maxToken: 3 } }, "workload.maxToken"],
    ["temperature 3", { targets: [target()], workload: { temperature: 3 } }, "workload.temperature"],
    ["bad schedule", { targets: [target()], schedule: "every 6 hours" }, "schedule"],
    ["standing windowHours 0", { targets: [target()], standing: { windowHours: 0 } }, "standing.windowHours"],
    ["fractional standing maxRuns", { targets: [target()], standing: { maxRuns: 2.5 } }, "standing.maxRuns"],
    ["negative standing maxRuns", { targets: [target()], standing: { maxRuns: -1 } }, "standing.maxRuns"],
    ["standing as text", { targets: [target()], standing: "72h" }, "standing"],
    ["unknown standing key", { targets: [target()], standing: { window: 24 } }, "standing.window"],
    ["invalid JSON", "{ targets: ", "(file)"],
    ["no targets", { targets: [] }, "targets"],
    [
      "custom verify malformed",
      { targets: [target({ route: { gateway: "custom", verify: { header: "x" } } })] },
      "targets[0].route.verify",
    ],
    [
      "invalid target workload",
      { targets: [target({ workload: { concurrency: [2, 1] } })] },
      "targets[0].workload.concurrency[1]",
    ],
    [
      "route typo",
      { targets: [target({ route: { gateway: "openrouter", provder: "groq" } })] },
      "targets[0].route.provder",
    ],
    ["id too long", { targets: [target({ id: "a".repeat(65) })] }, "targets[0].id"],
    ["ftp baseURL", { targets: [target({ baseURL: "ftp://example.com" })] }, "targets[0].baseURL"],
    [
      "concurrency above 1024",
      { targets: [target()], workload: { concurrency: [1, 2048] } },
      "workload.concurrency[1]",
    ],
    [
      "target sets both count and duration",
      { targets: [target({ workload: { requestsPerLevel: 3, levelDurationSeconds: 3 } })] },
      "targets[0].workload.levelDurationSeconds",
    ],
    [
      "timeout above 900",
      { targets: [target()], workload: { requestTimeoutSeconds: 901 } },
      "workload.requestTimeoutSeconds",
    ],
    ["bad apiKeyEnv name", { targets: [target({ apiKeyEnv: "lower-case" })] }, "targets[0].apiKeyEnv"],
  ];
  it.each(cases)("names the path of: %s", (_name, config, path) => {
    expect(problemsOf(config).map((p) => p.path)).toContain(path);
  });

  it("says every problem in its own words, never zod's, as the case list above and more", () => {
    const messages = cases
      .filter(([, config]) => typeof config !== "string")
      .flatMap(([, config]) => problemsOf(config).map((p) => p.message));
    for (const message of messages) {
      expect(message).not.toMatch(/Invalid|expected \w+, received|Too (big|small)|Unrecognized/);
      expect(message).toMatch(/^[a-z"$]/);
    }
  });

  it.each([
    ["workload.maxTokens", { maxTokens: 1.5 }, "must be a whole number, not 1.5"],
    ["workload.temperature", { temperature: 3 }, "must be at most 2"],
    ["workload.temperature", { temperature: -1 }, "must be at least 0"],
    ["workload.requestsPerLevel", { requestsPerLevel: 0 }, "must be a positive number"],
    ["workload.ignoreEos", { ignoreEos: "yes" }, 'must be true or false, not "yes"'],
    ["workload.concurrency", { concurrency: [] }, "must have at least 1 entry"],
    [
      "workload.arrival.format",
      { arrival: { mode: "trace", file: "t", format: "csv" } },
      "must be one of mooncake, burstgpt",
    ],
    [
      "workload.arrival.speedup[1]",
      { arrival: { mode: "trace", file: "t", format: "mooncake", speedup: [2, 1] } },
      "speedups must be strictly ascending: 1 follows 2",
    ],
    ["workload.canary.maxTokens", { canary: { maxTokens: 2048 } }, "must be at most 1024"],
  ])("says %s: %s in the project's words", (path, workload, message) => {
    expect(problemsOf({ targets: [target()], workload })).toContainEqual({ path, message });
  });

  it("names a missing field as required, and a string too long by its characters", () => {
    const problems = problemsOf({ targets: [{ ...target({ id: "a".repeat(65) }), model: undefined }] });
    expect(problems).toContainEqual({ path: "targets[0].model", message: "is required (a string)" });
    expect(problems).toContainEqual({ path: "targets[0].id", message: "must be at most 64 characters" });
  });

  it("accepts and ignores a $schema key", () => {
    const config = parse({ $schema: "../schemas/config.schema.json", targets: [target()] });
    expect(config.targets).toHaveLength(1);
    expect(problemsOf({ $schema: 5, targets: [target()] })).toEqual([
      { path: "$schema", message: "must be a string, not 5" },
    ]);
  });

  it("lists every problem, not just the first, and never the key's value", () => {
    const problems = problemsOf({
      targets: [target({ id: "BAD" }), target({ id: "x", route: { gateway: "openrouter" } })],
      workload: { maxTokens: 0 },
    });
    expect(problems.map((p) => p.path).sort()).toEqual([
      "targets[0].id",
      "targets[1].route.provider",
      "workload.maxTokens",
    ]);
    expect(JSON.stringify(problems)).not.toContain(env.TEST_KEY);
  });

  it("reports semantic problems alongside schema problems, naming a missing variable but no value", () => {
    const error = (() => {
      try {
        parseConfig(JSON.stringify({ targets: [target(), target({ apiKeyEnv: "OTHER_KEY" })], schedule: "hourly" }), {
          env: { TEST_KEY: "sk-very-secret-value", OTHER_KEY: "" },
        });
      } catch (caught) {
        return caught as ConfigError;
      }
      throw new Error("config was accepted");
    })();
    expect(error.problems.map((p) => p.path)).toEqual(["schedule", "targets[1].id", "targets[1].apiKeyEnv"]);
    expect(error.problems[2]?.message).toContain("OTHER_KEY");
    expect(error.message).not.toContain("sk-very-secret-value");
  });

  it("reports the checks across fields together with type errors in other places of the file", () => {
    const problems = problemsOf({
      targets: [
        target({ label: 5 }),
        target({
          id: "b",
          scenarios: ["rag", "nope", "rag"],
          workload: { requestsPerLevel: 3, levelDurationSeconds: 3 },
        }),
        target({ id: "b", apiKeyEnv: "UNSET_KEY_VAR" }),
      ],
      workload: { promptTokens: 100 },
      scenarios: { rag: { maxTokens: "many" }, long: { requestsPerLevel: 3, levelDurationSeconds: 3 } },
      schedule: 6,
    });
    expect(problems.map((p) => p.path).sort()).toEqual([
      "scenarios.long.levelDurationSeconds",
      "scenarios.rag.maxTokens",
      "schedule",
      "targets[0].label",
      "targets[1].scenarios[1]",
      "targets[1].scenarios[2]",
      "targets[1].workload.levelDurationSeconds",
      "targets[2].apiKeyEnv",
      "targets[2].id",
    ]);
    const message = (path: string) => problems.find((p) => p.path === path)?.message;
    expect(message("targets[2].id")).toBe("duplicate id b (also targets[1].id)");
    expect(message("targets[1].scenarios[1]")).toBe('unknown scenario "nope"; the config\'s scenarios are rag, long');
    expect(message("targets[1].scenarios[2]")).toBe("duplicate scenario rag (also targets[1].scenarios[0])");
    expect(message("scenarios.long.levelDurationSeconds")).toBe(
      "set requestsPerLevel or levelDurationSeconds, not both",
    );
    expect(message("targets[2].apiKeyEnv")).toBe("environment variable UNSET_KEY_VAR is not set or empty");
  });

  it("names count and duration at the layer that sets both, even when another layer is invalid", () => {
    const both = { requestsPerLevel: 3, levelDurationSeconds: 3 };
    expect(
      problemsOf({ targets: [target({ workload: both })], workload: { maxTokens: "many" } }).map((p) => p.path),
    ).toEqual(["targets[0].workload.levelDurationSeconds", "workload.maxTokens"]);
    expect(
      problemsOf({ targets: [target({ workload: { maxTokens: 3 } })], workload: both, scenarios: { chat: {} } }).map(
        (p) => p.path,
      ),
    ).toEqual(["workload.levelDurationSeconds"]);
  });

  it("skips the key check when requireKeys is false", () => {
    const config = parseConfig(JSON.stringify({ targets: [target()] }), { env: {}, requireKeys: false });
    expect(config.targets[0]?.apiKeyEnv).toBe("TEST_KEY");
  });

  it("names an unknown gateway and where invalid JSON breaks", () => {
    expect(problemsOf({ targets: [target({ route: { gateway: "bedrock" } })] })[0]?.message).toContain(
      'unknown gateway "bedrock"',
    );
    expect(problemsOf('{\n  "targets": [],\n  schedule: 1\n}')[0]?.message).toContain("line 3, column 3");
  });

  it("accepts every gateway and schedule form", () => {
    const config = parse({
      targets: [
        target({ id: "a", route: { gateway: "litellm", deployment: "d1" } }),
        target({ id: "b", route: { gateway: "direct" } }),
        target({
          id: "c",
          route: {
            gateway: "custom",
            headers: { "x-a": "1" },
            body: { p: 1 },
            verify: { bodyField: "provider", equals: "x" },
          },
        }),
      ],
      schedule: "cron(0 */6 * * ? *)",
    });
    expect(config.targets.map((t) => t.route.gateway)).toEqual(["litellm", "direct", "custom"]);
  });

  it("keeps the committed JSON Schemas current (run `npm run schemas`)", () => {
    for (const [path, text] of Object.entries(schemaFiles())) {
      expect(readFileSync(new URL(`../../../../${path}`, import.meta.url), "utf8"), path).toBe(text);
    }
  });
});

describe("workload.arrival", () => {
  it("defaults to a closed loop, and takes a Poisson open loop with its seed and maxInFlight defaults", () => {
    expect(workloadFor(parse({ targets: [target()] }), {}).arrival).toEqual({ mode: "closed" });
    const config = parse({ targets: [target()], workload: { arrival: { mode: "poisson", ratesPerSecond: [0.5, 2] } } });
    expect(workloadFor(config, {}).arrival).toEqual({
      mode: "poisson",
      ratesPerSecond: [0.5, 2],
      seed: 1,
      maxInFlight: 256,
    });
  });

  it("names poisson without rates, a rate that is not positive or not ascending, and an unknown mode by path", () => {
    const at = (arrival: unknown) => problemsOf({ targets: [target()], workload: { arrival } }).map((p) => p.path);
    expect(at({ mode: "poisson" })).toEqual(["workload.arrival.ratesPerSecond"]);
    expect(at({ mode: "poisson", ratesPerSecond: [1, 0] })).toContain("workload.arrival.ratesPerSecond[1]");
    expect(at({ mode: "poisson", ratesPerSecond: [-2] })).toEqual(["workload.arrival.ratesPerSecond[0]"]);
    expect(at({ mode: "poisson", ratesPerSecond: [2, 1] })).toEqual(["workload.arrival.ratesPerSecond[1]"]);
    expect(at({ mode: "bursty" })).toEqual(["workload.arrival.mode"]);
    expect(
      problemsOf({ targets: [target({ workload: { arrival: { mode: "poisson", ratesPerSecond: [] } } })] }).map(
        (p) => p.path,
      ),
    ).toEqual(["targets[0].workload.arrival.ratesPerSecond"]);
  });
});

describe("reference routes and the canary", () => {
  it("takes one reference route per model key, and names a second one by its path", () => {
    const a = target({ id: "a", model: "org/m", reference: true });
    const b = target({ id: "b", model: "other/m", reference: true });
    const c = target({ id: "c", model: "org/m", modelKey: "m2", reference: true });
    expect(parse({ targets: [a, c] }).targets.map((t) => t.reference)).toEqual([true, true]);
    expect(problemsOf({ targets: [a, c, b] })).toEqual([
      {
        path: "targets[2].reference",
        message: "model m has a reference route already (targets[0].reference): at most one per modelKey",
      },
    ]);
    expect(problemsOf({ targets: [target({ reference: "yes" })] }).map((p) => p.path)).toEqual([
      "targets[0].reference",
    ]);
  });

  it("runs the canary where a layer sets it: false turns it off, true or an object on, the nearest layer deciding; its fields are checked", () => {
    const config = parse({
      targets: [target({ id: "a" }), target({ id: "b", workload: { canary: { concurrency: 8 } } })],
      workload: { canary: false },
      scenarios: { chat: {}, rag: { canary: { samplesPerPrompt: 5 } } },
    });
    const [a, b] = config.targets as [never, never];
    const canary = (t: never, scenario: string) => canaryFor(config.targets, t, workloadFor(config, t, scenario));
    expect(canary(a, "chat")).toBeNull();
    expect(canary(b, "chat")).toEqual({ ...DEFAULT_CANARY, concurrency: 8 });
    expect(canary(b, "rag")).toEqual({ ...DEFAULT_CANARY, samplesPerPrompt: 5 });
    // `true` on a lone route with no reference: set, so on.
    const lone = parse({ targets: [target({ workload: { canary: true } })] });
    expect(canaryChoice(lone.targets, lone.targets[0] as never, workloadFor(lone, lone.targets[0] as never))).toEqual({
      settings: DEFAULT_CANARY,
      cause: "set",
      modelKey: "llama-3.1-8b-instruct",
    });
    expect(DEFAULT_CANARY).toEqual({ samplesPerPrompt: 10, maxTokens: 32, concurrency: 4, temperature: 1 });
    const at = (canary: unknown) => problemsOf({ targets: [target()], workload: { canary } }).map((p) => p.path);
    expect(at({ samplesPerPrompt: 0 })).toEqual(["workload.canary.samplesPerPrompt"]);
    expect(at({ temperature: 0.5 })).toEqual(["workload.canary.temperature"]);
    expect(at("on")).toEqual(["workload.canary"]);
  });

  it("runs the canary by default only on the routes of a model with a reference route and another route", () => {
    const config = parse({
      targets: [
        target({ id: "ref", model: "org/m", reference: true }),
        target({ id: "gateway", model: "gw/m" }),
        target({ id: "solo", model: "org/solo" }),
        target({ id: "solo-ref", model: "org/alone", reference: true }),
        target({ id: "pair-a", model: "org/pair" }),
        target({ id: "pair-b", model: "org/pair" }),
      ],
    });
    const choice = (id: string) => {
      const t = config.targets.find((x) => x.id === id) as never;
      const { settings, cause, modelKey } = canaryChoice(config.targets, t, workloadFor(config, t));
      return [settings === null ? "off" : "on", cause, modelKey];
    };
    expect(choice("ref")).toEqual(["on", "judged", "m"]);
    expect(choice("gateway")).toEqual(["on", "judged", "m"]);
    expect(choice("solo")).toEqual(["off", "no-reference", "solo"]);
    expect(choice("solo-ref")).toEqual(["off", "alone", "alone"]);
    expect(choice("pair-a")).toEqual(["off", "no-reference", "pair"]);
    expect(canaryFor(config.targets, config.targets[0] as never, {})).toEqual(DEFAULT_CANARY);
  });

  it("refuses an OpenRouter route without apiKeyEnv, at the target's apiKeyEnv", () => {
    const { apiKeyEnv: _, ...keyless } = target();
    expect(problemsOf({ targets: [target({ id: "keyed" }), keyless] })).toEqual([
      {
        path: "targets[1].apiKeyEnv",
        message:
          "is required with gateway openrouter, which answers no request without a key: name the variable that holds it, such as OPENROUTER_API_KEY",
      },
    ]);
    const direct = { ...keyless, route: { gateway: "direct" } };
    expect(parse({ targets: [direct] }).targets[0]?.apiKeyEnv).toBeUndefined();
  });
});

describe("workload.toolCalls", () => {
  it("is off by default; true or an object turns it on, the nearest layer deciding; its fields are checked at their path", () => {
    const config = parse({
      targets: [target({ id: "a" }), target({ id: "b", workload: { toolCalls: { concurrency: 8 } } })],
      workload: { toolCalls: true },
      scenarios: { chat: {}, quiet: { toolCalls: false }, many: { toolCalls: { samplesPerPrompt: 10 } } },
    });
    const [a, b] = config.targets as [never, never];
    const of = (t: never, scenario: string) => toolCallsFor(workloadFor(config, t, scenario));
    expect(of(a, "chat")).toEqual(DEFAULT_TOOL_CALLS);
    expect(of(b, "chat")).toEqual({ ...DEFAULT_TOOL_CALLS, concurrency: 8 });
    expect(of(b, "quiet")).toBeNull();
    // A scenario's object replaces the target's whole, as the canary's does.
    expect(of(b, "many")).toEqual({ ...DEFAULT_TOOL_CALLS, samplesPerPrompt: 10 });
    expect(toolCallsFor(workloadFor(parse({ targets: [target()] }), target() as never))).toBeNull();
    expect(DEFAULT_TOOL_CALLS).toEqual({ samplesPerPrompt: 4, concurrency: 4, temperature: 0, maxTokens: 256 });

    const at = (toolCalls: unknown) =>
      problemsOf({ targets: [target({ workload: { toolCalls } })] }).map((p) => `${p.path}: ${p.message}`);
    expect(at({ samplesPerPrompt: 0 })).toEqual([
      expect.stringMatching(/^targets\[0\]\.workload\.toolCalls\.samplesPerPrompt: /),
    ]);
    expect(at({ concurrency: 65 })).toEqual([
      expect.stringMatching(/^targets\[0\]\.workload\.toolCalls\.concurrency: /),
    ]);
    expect(at({ temperature: 1 })).toEqual([
      expect.stringMatching(/^targets\[0\]\.workload\.toolCalls\.temperature: /),
    ]);
    expect(at("yes")).toEqual([
      "targets[0].workload.toolCalls: must be true, false or { samplesPerPrompt?, concurrency? }",
    ]);
  });
});
