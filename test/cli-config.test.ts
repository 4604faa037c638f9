/**
 * @module `kneeboard run` and `kneeboard site` end to end where nothing is measured: exit 2 on a bad
 * config (each path named, nothing written), exit 1 on a wrong key (every request a 401), and the demo
 * config. Beside the other files (project `parallel`); the sweeps that must come out valid are in
 * `cli.test.ts` (project `timed`). The command runs in this process (no start-up of tsx per call), but
 * for the wrong key, run as a process.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  DEMO_CANARY,
  DEMO_CANARY_TARGETS,
  DEMO_CONVERSATION_TARGETS,
  DEMO_RAG_TARGETS,
  DEMO_REPEAT,
  DEMO_REPLAY_TARGETS,
  DEMO_SEARCHES,
  DEMO_TOOL_CALL_TARGETS,
  DEMO_TOOL_CALLS,
  demoConfig,
} from "@kneeboard/cli/run";
import { canaryFor, parseConfig, scenariosOf, toolCallsFor, workloadFor } from "@kneeboard/core/config";
import { MIN_OPEN_LOOP_REQUESTS } from "@kneeboard/core/metrics";
import { missingNumbersWarning } from "@kneeboard/core/plan";
import { TOOL_SUITE } from "@kneeboard/core/tool-calls";
import {
  REFERENCE_OPEN_RATES,
  REFERENCE_OPEN_REQUESTS,
  REFERENCE_SLO,
  type ReferenceServer,
  referenceModels,
  referenceTargets,
  SMALL_SLOPPY,
} from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLI_WORKLOAD,
  cliTarget,
  configFolder,
  filesUnder,
  kneeboard,
  kneeboardHere,
  SECRET,
  startCliServer,
} from "./cli-harness.ts";

let server: ReferenceServer;
const { dir, writeConfig } = configFolder("kneeboard-cli-config-");

beforeAll(async () => {
  server = await startCliServer();
});
afterAll(() => server.close());

describe("kneeboard run", () => {
  const target = () => cliTarget(server);
  const workload = CLI_WORKLOAD;

  it("exits 2 on invalid scenarios, naming each path, and writes nothing", async () => {
    const data = join(dir, "bad-scenario-data");
    const config = {
      targets: [{ ...target(), scenarios: ["chat", "nope"] }],
      workload,
      scenarios: {
        chat: {},
        Rag: {},
        rag: { maxTokens: 0 },
        open: { arrival: { mode: "poisson" } },
        still: { arrival: { mode: "poisson", ratesPerSecond: [2, 0] } },
      },
    };
    const result = await kneeboardHere(["run", "--config", writeConfig("bad-scenarios.json", config), "--data", data], {
      KB_TEST_KEY: SECRET,
    });
    expect(result.code).toBe(2);
    expect(result.out).toContain("scenarios.Rag: must be a slug");
    expect(result.out).toContain("scenarios.rag.maxTokens");
    expect(result.out).toContain("scenarios.open.arrival.ratesPerSecond");
    expect(result.out).toContain("scenarios.still.arrival.ratesPerSecond[1]");
    expect(result.out).toMatch(
      /targets\[0\]\.scenarios\[1\]: unknown scenario "nope"; the config's scenarios are chat, Rag, rag, open, still/,
    );
    const empty = await kneeboardHere(
      [
        "run",
        "--config",
        writeConfig("empty-scenarios.json", { targets: [target()], workload, scenarios: {} }),
        "--data",
        data,
      ],
      { KB_TEST_KEY: SECRET },
    );
    expect(empty.code).toBe(2);
    expect(empty.out).toContain("scenarios: must name at least one scenario");
    expect(existsSync(data)).toBe(false);
  });

  // As a process, the one test of this file that is: the key must not reach anything the real process
  // prints, stdout or stderr, whoever writes it; and bin/kneeboard.js exits 1 for a failed run.
  it("records a wrong key as http_error per request; the run failed: exit 1, the key's variable named", async () => {
    const data = join(dir, "badkey-data");
    const result = await kneeboard(
      ["run", "--config", writeConfig("badkey.json", { targets: [target()], workload }), "--data", data],
      { KB_TEST_KEY: "wrong" },
    );
    expect(result.code).toBe(1);
    expect(result.out).toContain("is KB_TEST_KEY set to a valid key");
    expect(result.out).not.toContain("wrong");
    const doc = JSON.parse(readFileSync(filesUnder(join(data, "runs"))[0] as string, "utf8"));
    expect(
      doc.samples.every(
        (s: { outcome: string; httpStatus: number }) => s.outcome === "http_error" && s.httpStatus === 401,
      ),
    ).toBe(true);
  });

  it("exits 2 on an invalid config, names each path, and writes nothing", async () => {
    const data = join(dir, "bad-data");
    const config = {
      targets: [
        { ...target(), id: "Bad Id" },
        { ...target(), route: { gateway: "openrouter" } },
      ],
      workload: { concurrency: [4, 2] },
    };
    const result = await kneeboardHere(["run", "--config", writeConfig("bad.json", config), "--data", data], {
      KB_TEST_KEY: SECRET,
    });
    expect(result.code).toBe(2);
    expect(result.out).toContain("targets[0].id");
    expect(result.out).toContain("targets[1].route.provider");
    expect(result.out).toContain("workload.concurrency");
    expect(existsSync(data)).toBe(false);
  });

  it("exits 2 on a conversation of no turns or a negative think time, naming the paths, sending nothing", async () => {
    const data = join(dir, "bad-conversation-data");
    const before = server.counts().requests;
    const config = {
      targets: [target()],
      scenarios: { talk: { conversation: { turns: 0, sharedPrefixTokens: 100, thinkSeconds: -2 } } },
    };
    const result = await kneeboardHere(["run", "--config", writeConfig("bad-talk.json", config), "--data", data], {
      KB_TEST_KEY: SECRET,
    });
    expect(result.code).toBe(2);
    expect(result.out).toContain("scenarios.talk.conversation.turns");
    expect(result.out).toContain("scenarios.talk.conversation.thinkSeconds");
    expect(server.counts().requests).toBe(before);
    expect(existsSync(data)).toBe(false);
  });

  it("exits 2 when the key variable is missing or a --target is unknown, writing nothing", async () => {
    const data = join(dir, "nokey-data");
    const file = writeConfig("nokey.json", { targets: [target()], workload });
    const missing = await kneeboardHere(["run", "--config", file, "--data", data], { KB_TEST_KEY: "" });
    expect(missing.code).toBe(2);
    expect(missing.out).toContain("targets[0].apiKeyEnv");
    const unknown = await kneeboardHere(["run", "--config", file, "--data", data, "--target", "nope"], {
      KB_TEST_KEY: SECRET,
    });
    expect(unknown).toEqual({
      code: 2,
      out: `--target nope: ${file} has no such target; its targets are ref-m\n`,
    });
    expect((await kneeboardHere(["run", "--bogus"])).code).toBe(2);
    expect(existsSync(data)).toBe(false);
  });

  it("exits 2 on a config file that is not there or is a folder, in one sentence, writing nothing", async () => {
    const data = join(dir, "missing-config-data");
    for (const [config, sentence] of [
      [join(dir, "nope.json"), `config file ${join(dir, "nope.json")} does not exist`],
      [dir, `config file ${dir} is a folder, not a file`],
    ] as const)
      for (const command of ["run", "plan"]) {
        const args = command === "run" ? ["run", "--config", config, "--data", data] : ["plan", "--config", config];
        expect(await kneeboardHere(args)).toEqual({ code: 2, out: `${sentence}\n` });
      }
    expect(existsSync(data)).toBe(false);
    expect(existsSync(join(dir, "nope.json"))).toBe(false);
  });

  it("exits 2 on an invalid config with every problem in kneeboard's words, none of zod's", async () => {
    const data = join(dir, "zod-words-data");
    const config = {
      $schema: "../schemas/config.schema.json",
      targets: [{ ...target(), label: "", model: undefined }],
      workload: { ...workload, temperature: 3, maxTokens: 1.5, arrival: { mode: "trace", file: "t", format: "csv" } },
    };
    const file = writeConfig("zod-words.json", config);
    const result = await kneeboardHere(["run", "--config", file, "--data", data], { KB_TEST_KEY: SECRET });
    expect(result.code).toBe(2);
    expect(result.out).toBe(
      [
        `${file} is invalid:`,
        "  targets[0].label: must not be empty",
        "  targets[0].model: is required (a string)",
        "  workload.maxTokens: must be a whole number, not 1.5",
        "  workload.temperature: must be at most 2",
        "  workload.arrival.format: must be one of mooncake, burstgpt",
        "nothing was written.",
        "",
      ].join("\n"),
    );
    expect(existsSync(data)).toBe(false);
  });
});

describe("kneeboard site --config", () => {
  it("exits 2 naming a bad standing window, building nothing", async () => {
    const out = join(dir, "bad-standing-site");
    const file = writeConfig("bad-standing.json", {
      targets: [{ id: "a", label: "a", baseURL: "http://127.0.0.1:9/v1", model: "m", route: { gateway: "direct" } }],
      standing: { windowHours: 0, maxRuns: 24 },
    });
    const result = await kneeboardHere(["site", "--config", file, "--data", join(dir, "no-data"), "--out", out]);
    expect(result.code).toBe(2);
    expect(result.out).toContain("standing.windowHours");
    expect(existsSync(out)).toBe(false);
  });
});

describe("the demo config (npm start)", () => {
  const config = parseConfig(JSON.stringify(demoConfig("http://127.0.0.1:9/v1", "/tmp/synthetic-mooncake.jsonl")));
  const pairs = config.targets.flatMap((t) => scenariosOf(config, t).map((s) => [t.id, s] as const));
  const targetOf = (id: string) => config.targets.find((t) => t.id === id) as (typeof config.targets)[number];
  const workload = (id: string, scenario: string) => workloadFor(config, targetOf(id), scenario);
  const canary = (id: string, scenario: string) => canaryFor(config.targets, targetOf(id), workload(id, scenario));

  it("sweeps every reference target and the sloppy route in chat but the two conversation routes, the small and large model in rag too, each simulated", () => {
    // The references first (a run is judged against the reference's runs started before it), then the
    // others in their order, then the sloppy route.
    const reference = referenceTargets("http://127.0.0.1:9/v1");
    expect(config.targets.map((t) => t.id)).toEqual([
      ...reference.filter((t) => t.reference).map((t) => t.id),
      ...reference.filter((t) => !t.reference).map((t) => t.id),
      "ref-small-sloppy",
    ]);
    expect(config.targets.slice(0, 2).map((t) => t.id)).toEqual(["ref-large-slow", "ref-small-priced"]);
    expect(config.targets.every((t) => t.label.endsWith("(simulated)"))).toBe(true);
    // The demo's server (referenceModels) serves every model the targets name.
    const served = new Set(referenceModels().map((m) => m.id));
    expect(config.targets.filter((t) => !served.has(t.model))).toEqual([]);
    expect(DEMO_RAG_TARGETS).toEqual(["ref-small-fast", "ref-large-slow"]);
    expect(
      pairs
        .filter(([, s]) => s === "rag")
        .map(([id]) => id)
        .sort(),
    ).toEqual([...DEMO_RAG_TARGETS].sort());
    expect(pairs.filter(([, s]) => s === "chat")).toHaveLength(12);
    expect(DEMO_CONVERSATION_TARGETS).toEqual(["ref-small-cached", "ref-small-uncached"]);
    expect(pairs.filter(([, s]) => s === "conversation").map(([id]) => id)).toEqual(DEMO_CONVERSATION_TARGETS);
    // The trace replay, on the route with a prefix cache: every load kind is on the demo's site.
    expect(DEMO_REPLAY_TARGETS).toEqual(["ref-small-cached"]);
    expect(pairs.filter(([, s]) => s === "replay").map(([id]) => id)).toEqual(DEMO_REPLAY_TARGETS);
    expect(workload("ref-small-cached", "replay").arrival).toMatchObject({ mode: "trace", speedup: [16], limit: 20 });
    // 17 (target, scenario) pairs, 3 runs each: 51 runs.
    expect(pairs.length * DEMO_REPEAT).toBe(51);
  });

  it("runs the tool-call phase in chat on the small model's reference, a faithful route and the sloppy route, enough for the verdict", () => {
    const phased = pairs.filter(([id, s]) => toolCallsFor(workload(id, s)) !== null);
    expect(phased.map(([id]) => id).sort()).toEqual([...DEMO_TOOL_CALL_TARGETS].sort());
    expect(phased.every(([, s]) => s === "chat")).toBe(true);
    expect(toolCallsFor(workload("ref-small-sloppy", "chat"))).toEqual({
      samplesPerPrompt: 2,
      concurrency: 8,
      temperature: 0,
      maxTokens: 256,
    });
    expect(toolCallsFor(workload("ref-small-priced", "chat"))?.samplesPerPrompt).toBe(2);
    expect(toolCallsFor(workload("ref-small-fast", "chat"))?.samplesPerPrompt).toBe(2);
    // One model, its reference among them: each other route gets a verdict against it.
    const routes = DEMO_TOOL_CALL_TARGETS.map(targetOf);
    expect(routes.map((t) => t.modelKey)).toEqual(["ref-small", "ref-small", "ref-small"]);
    expect(routes.filter((t) => t.reference).map((t) => t.id)).toEqual(["ref-small-priced"]);
    // The verdict's unit is the prompt: the demo asks each of the suite's 120 prompts twice a route.
    expect(TOOL_SUITE.prompts).toHaveLength(120);
    for (const settings of Object.values(DEMO_TOOL_CALLS)) expect(settings.samplesPerPrompt).toBe(2);
    // The sloppy route breaks tool calls; it runs the fewest levels, and no canary.
    expect(targetOf("ref-small-sloppy").model).toBe("ref-small-sloppy");
    expect(referenceModels().find((m) => m.id === "ref-small-sloppy")).toMatchObject({ profile: SMALL_SLOPPY });
    expect(SMALL_SLOPPY.tools?.breakages).toBeDefined();
    expect(workload("ref-small-sloppy", "chat")).toMatchObject({ concurrency: [1, 4], levelDurationSeconds: 0.25 });
    expect(canary("ref-small-sloppy", "chat")).toBeNull();
  });

  it("gives every closed-loop route both numbers: N = 1 and a level above (a search of users measures N = 1 first)", () => {
    for (const [id, s] of pairs) expect(missingNumbersWarning(workload(id, s)), `${id} in ${s}`).toBeNull();
    // The searched route runs its search from 4: N = 1 comes first, outside the search (docs/methodology.md).
    expect(workload("ref-small-fast", "chat").concurrency).toMatchObject({ search: { from: 4 } });
  });

  it("every example config gives each closed-loop sweep both numbers", () => {
    const dir = new URL("../examples/", import.meta.url);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const example = parseConfig(readFileSync(new URL(file, dir), "utf8"), { requireKeys: false });
      for (const t of example.targets)
        for (const s of scenariosOf(example, t))
          expect(missingNumbersWarning(workloadFor(example, t, s)), `examples/${file}: ${t.id} in ${s}`).toBeNull();
    }
  });

  it("runs the canary in chat on every route of the models with a reference route, one reference each", () => {
    const canaried = pairs.filter(([id, s]) => canary(id, s) !== null);
    expect(canaried.map(([id]) => id).sort()).toEqual([...DEMO_CANARY_TARGETS].sort());
    expect(canaried.every(([, s]) => s === "chat")).toBe(true);
    expect(canary("ref-small-quantized", "chat")).toEqual({ ...DEMO_CANARY, temperature: 1 });
    const references = config.targets.filter((t) => t.reference).map((t) => t.modelKey ?? t.model);
    expect(references.sort()).toEqual(["ref-large", "ref-small"]);
  });

  it("without the canary and tool calls for the rounds before the last: the same pairs and workloads, neither phase anywhere", () => {
    const quiet = parseConfig(
      JSON.stringify(
        demoConfig("http://127.0.0.1:9/v1", "/tmp/synthetic-mooncake.jsonl", { canary: false, toolCalls: false }),
      ),
    );
    const quietPairs = quiet.targets.flatMap((t) => scenariosOf(quiet, t).map((s) => [t, s] as const));
    expect(quietPairs.map(([t, s]) => [t.id, s])).toEqual(pairs);
    for (const [t, s] of quietPairs) {
      const { canary: _off, toolCalls: _none, ...levels } = workloadFor(quiet, t, s);
      const { canary: _on, toolCalls: _some, ...same } = workload(t.id, s);
      expect(levels).toEqual(same);
      expect(canaryFor(quiet.targets, t, workloadFor(quiet, t, s))).toBeNull();
      expect(toolCallsFor(workloadFor(quiet, t, s))).toBeNull();
    }
  });

  it("chat: 150-token prompts, levels 1 to 16, counted (20 a level) only where counts matter; rag: 2,000-token prompts at 2 short levels", () => {
    const chat = workload("ref-ratelimited", "chat");
    expect(chat).toMatchObject({
      concurrency: [1, 2, 4, 8, 16],
      promptTokens: 150,
      maxTokens: 24,
      requestsPerLevel: 20,
    });
    expect(workload("ref-gateway-beta", "chat")).toMatchObject({ requestsPerLevel: 20, concurrency: [1, 4, 16] });
    expect(workload("ref-small-priced", "chat")).toMatchObject({ levelDurationSeconds: 0.25, promptTokens: 150 });
    expect(workload("ref-small-priced", "chat").requestsPerLevel).toBeUndefined();
    for (const id of DEMO_RAG_TARGETS)
      expect(workload(id, "rag")).toMatchObject({
        concurrency: [1, 4],
        promptTokens: 2000,
        maxTokens: 24,
        levelDurationSeconds: 0.8,
        warmupRequests: 0,
        slo: { minOutputTokensPerSecond: 20, maxTtftMs: 1500 },
      });
  });

  it("conversation: the small model's two routes, one with a prefix cache, four-turn conversations at N = 1 and 4", () => {
    for (const id of DEMO_CONVERSATION_TARGETS) {
      const w = workload(id, "conversation");
      expect(w).toMatchObject({
        concurrency: [1, 4],
        requestsPerLevel: 16,
        conversation: { turns: 4, sharedPrefixTokens: 120, thinkSeconds: 0 },
      });
      // Every user reaches the last turn at every level.
      expect(w.requestsPerLevel).toBeGreaterThanOrEqual(4 * Math.max(...(w.concurrency as number[])));
      expect(w.levelDurationSeconds).toBeUndefined();
    }
    expect(config.targets.filter((t) => DEMO_CONVERSATION_TARGETS.includes(t.id)).map((t) => t.modelKey)).toEqual([
      "ref-small",
      "ref-small",
    ]);
  });

  it("searches the small fast model's users in chat, counted, on per-stream speed alone (its page says no TTFT limit); its rag keeps the ladder", () => {
    const searched = pairs.filter(([id, s]) => !Array.isArray(workload(id, s).concurrency));
    expect(searched).toEqual([["ref-small-fast", "chat"]]);
    expect(Object.keys(DEMO_SEARCHES)).toEqual(["ref-small-fast"]);
    const chat = workload("ref-small-fast", "chat");
    expect(chat).toMatchObject({
      concurrency: { search: { from: 4, to: 8, resolution: 0.1, maxRequestsPerLevel: 32 } },
      requestsPerLevel: 16,
      promptTokens: 150,
      slo: { minOutputTokensPerSecond: REFERENCE_SLO.minOutputTokensPerSecond, maxTtftMs: null },
    });
    // A search runs counted levels.
    expect(chat.levelDurationSeconds).toBeUndefined();
    expect(workload("ref-small-fast", "rag")).toMatchObject({ concurrency: [1, 4], levelDurationSeconds: 0.8 });
  });

  it("one open-loop target: Poisson arrivals at the reference rates, a count of sends a level over the open loop's minimum", () => {
    const open = config.targets.filter((t) => workload(t.id, "chat").arrival.mode === "poisson");
    expect(open.map((t) => t.id)).toEqual(["ref-small-open"]);
    expect(workload("ref-small-open", "chat")).toMatchObject({
      arrival: { mode: "poisson", ratesPerSecond: REFERENCE_OPEN_RATES },
      requestsPerLevel: REFERENCE_OPEN_REQUESTS,
    });
    // Counted, not timed: every rate sends as many, at least the open loop's minimum of requests.
    expect(workload("ref-small-open", "chat").levelDurationSeconds).toBeUndefined();
    expect(REFERENCE_OPEN_REQUESTS).toBeGreaterThanOrEqual(MIN_OPEN_LOOP_REQUESTS);
  });
});
