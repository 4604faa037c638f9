/**
 * @module `kneeboard plan` end to end: the examples plan cleanly, a bad config exits 2 naming each path,
 * nothing is sent. The command runs in this process (no start-up of tsx per test), but for one example
 * planned as a process: bin/kneeboard.js and its exit code.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_MAX_INVOCATIONS } from "@kneeboard/core/plan";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kneeboard, kneeboardHere } from "./cli-harness.ts";

const EXAMPLES = new URL("../examples/", import.meta.url).pathname;
/** The example planned by the command as a process. */
const AS_PROCESS = "vllm.json";
const dir = mkdtempSync(join(tmpdir(), "kneeboard-plan-"));

// An endpoint that counts what reaches it: planning must send it nothing.
let requests = 0;
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(500).end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe("kneeboard plan", () => {
  const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith(".json"));

  it("has the six example configs", () => {
    expect(examples.sort()).toEqual([
      "litellm.json",
      "llama-server.json",
      "ollama.json",
      "openrouter.json",
      "trace.json",
      "vllm.json",
    ]);
  });

  it.each(examples)("plans examples/%s with exit 0, no key set", async (file) => {
    // One of them as a process (bin/kneeboard.js, its exit code); the others in this process.
    const command = file === AS_PROCESS ? kneeboard : kneeboardHere;
    const result = await command(["plan", "--config", join(EXAMPLES, file)], {
      OPENROUTER_API_KEY: "",
      LITELLM_API_KEY: "",
    });
    expect(result.code).toBe(0);
    expect(result.out).toContain("is valid");
    expect(result.out).toMatch(/duration expected: [\d,]+ s/);
    expect(result.out).toMatch(/duration upper bound: [\d,]+ s/);
    expect(result.out).toContain("chunks/s");
    // The canary runs where it can judge: the routes of a model with a reference route (the OpenRouter
    // example's three providers, Cerebras the reference); a lone route's is off, saving its requests.
    const sections = result.out.split("\n\n").filter((part) => part.startsWith("target "));
    for (const part of sections)
      expect(part).toMatch(
        file === "openrouter.json"
          ? /\n {2}canary \(same model\?\): 100 requests/
          : /\n {2}canary off: model \S+ has no reference route \(saves 100 requests per run\)/,
      );
    expect(result.out).not.toContain("warning: canary");
  });

  it("plans each (target, scenario) with its own bound and continuations, longer for a longer prompt", async () => {
    const local = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      label: id,
      baseURL: url,
      model: "m",
      route: { gateway: "direct" },
      ...extra,
    });
    const config = {
      targets: [local("a"), local("b", { scenarios: ["long-context"] })],
      workload: { concurrency: [1, 2, 4, 8], requestsPerLevel: 8, warmupRequests: 0, requestTimeoutSeconds: 60 },
      scenarios: {
        chat: {},
        rag: { promptTokens: 4000, maxTokens: 256 },
        "long-context": { promptTokens: 32000, maxTokens: 256 },
      },
    };
    const file = join(dir, "scenarios.json");
    writeFileSync(file, JSON.stringify(config));
    const result = await kneeboardHere(["plan", "--config", file]);
    expect(result.code).toBe(0);
    expect(result.out).toContain("2 targets, 4 sweeps per slot");
    const sections = result.out.split("\n\n").filter((part) => part.startsWith("target "));
    expect(sections.map((part) => part.split(":")[0])).toEqual([
      "target a [chat]",
      "target a [rag]",
      "target a [long-context]",
      "target b [long-context]",
    ]);
    const expected = sections.map((part) => Number(/duration expected: ([\d,]+) s/.exec(part)?.[1]?.replace(/,/g, "")));
    // chat < rag < long-context: the prompt's prefill grows each request's expected time.
    expect(expected[0]).toBeLessThan(expected[1] as number);
    expect(expected[1]).toBeLessThan(expected[2] as number);
    expect(expected[2]).toBe(expected[3]);
    // Long context: 15 rounds of 0.5 + 15.5 + 5.12 s = 317 s, one invocation; at the timeout (15 x 60 s:
    // levels of 480, 240, 120, 60 s) its upper bound needs a continuation.
    expect(sections[2]).toContain("duration expected: 317 s\n");
    expect(sections[2]).toContain("duration upper bound: 900 s\n");
    // Every target is on this machine: the Lambda invocations are left out unless asked for.
    expect(result.out).not.toContain("invocation");
    const deployed = await kneeboardHere(["plan", "--config", file, "--deployed"]);
    expect(deployed.out).toContain(
      "  a [long-context]: expected 317 s, fits one invocation; upper bound 900 s, needs 2 invocations (1 continuation)\n",
    );
    expect(requests).toBe(0);
  });

  it("plans the tool-call phase where a layer turns it on: requests, tokens, dollars, time, and whether it can be judged", async () => {
    const config = {
      targets: [
        {
          id: "agents",
          label: "Agents",
          baseURL: url,
          model: "m",
          route: { gateway: "direct" },
          pricing: { inputPerMillionUsd: 1, outputPerMillionUsd: 2 },
        },
        // The model's maker, named otherwise and with no shared modelKey: not the reference of `m`.
        {
          id: "maker",
          label: "Maker",
          baseURL: url,
          model: "maker/m-instruct",
          route: { gateway: "direct" },
          reference: true,
        },
      ],
      workload: { concurrency: [1], requestsPerLevel: 4, requestTimeoutSeconds: 60 },
      scenarios: { chat: {}, tools: { toolCalls: { samplesPerPrompt: 2, concurrency: 8 } } },
    };
    const file = join(dir, "tool-calls.json");
    writeFileSync(file, JSON.stringify(config));
    const result = await kneeboardHere(["plan", "--config", file]);
    expect(result.code).toBe(0);
    const [chat, tools] = ["chat", "tools"].map(
      (name) => result.out.split("\n\n").find((part) => part.startsWith(`target agents [${name}]`)) ?? "",
    );
    expect(chat).toContain("tool calls: off (workload toolCalls false, the default)");
    // tools-v2's 120 prompts x 2 = 240 requests, 30 rounds of 8 at 0.5 s + 256 tokens at 50 tok/s = 5.62 s
    // each: 168.6 s; at the 60 s timeout 1,800 s. At most 240 x 256 = 61,440 output tokens.
    const line =
      /tool calls \(works for agents\?\): 240 requests after the levels and the canary \(tools-v2's 120 prompts x 2, temperature 0, maxTokens 256, 8 at once\): about ([\d,]+) prompt and at most 61,440 output tokens, about \$([\d.]+) at the list prices; expected 168\.6 s, upper bound 1,800 s/.exec(
        tools ?? "",
      );
    expect(line).not.toBeNull();
    const promptTokens = Number(line?.[1]?.replace(/,/g, ""));
    // Each request sends its tools' schemas: several hundred tokens a request, not the messages' few dozen.
    expect(promptTokens / 240).toBeGreaterThan(150);
    expect(Number(line?.[2])).toBeCloseTo((promptTokens * 1 + 61_440 * 2) / 1e6, 2);
    // No route of `m` is its reference; the maker's route is another model key's.
    expect(tools).toContain(
      "  tool calls cannot be judged: no route of model m is marked reference (targets[].reference), so no verdict can come of them; the reference routes maker (m-instruct) serve other model keys: routes whose model names differ are compared only when they share a modelKey",
    );
    const maker = result.out.split("\n\n").find((part) => part.startsWith("target maker [tools]")) ?? "";
    expect(maker).toContain(
      "  tool calls cannot be judged: it is the reference of model m-instruct and its only route: no other route's tool calls are compared with it",
    );
    expect(requests).toBe(0);
  });

  it("plans an open-loop scenario by its rates: sending time, the last request, in flight against maxInFlight", async () => {
    const config = {
      targets: [{ id: "open", label: "Open", baseURL: url, model: "m", route: { gateway: "direct" } }],
      workload: {
        concurrency: [1, 2],
        maxTokens: 256,
        levelDurationSeconds: 20,
        warmupRequests: 1,
        requestTimeoutSeconds: 60,
      },
      scenarios: {
        chat: {},
        poisson: { arrival: { mode: "poisson", ratesPerSecond: [1, 4, 16], seed: 1, maxInFlight: 64 } },
      },
    };
    const file = join(dir, "open.json");
    writeFileSync(file, JSON.stringify(config));
    const result = await kneeboardHere(["plan", "--config", file]);
    expect(result.code).toBe(0);
    const open = result.out.split("\n\n").find((part) => part.startsWith("target open [poisson]")) ?? "";
    // A request: 0.5 s to the first token, then 256 tokens at 50 tok/s = 5.62 s. A level: one warm-up
    // request, 20 s of sends, then the last request: 31.2 s; at the timeout 60 + 20 + 60 = 140 s.
    expect(open).toMatch(/^ +rate +warm-up/m);
    for (const rate of ["1/s", "4/s", "16/s"])
      expect(open).toMatch(new RegExp(`^ +${rate} +1 +20 s +31\\.2 +140$`, "m"));
    expect(open).toContain("open loop (Poisson arrivals, warm-up one at a time) for 20 s per level + 3 warm-up");
    // Little's law at 16/s: 16 x 5.62 s = 90 in flight, over the 64 allowed.
    expect(open).toContain("maxInFlight: at 16/s about 90 requests would be in flight, at or over 64");
    // The top level's chunks: every answer once per send, 16 x 256 = 4,096 chunks/s.
    expect(open).toContain("top level: 16 requests/s x 256 tokens = 4,096 chunks/s");
    const chat = result.out.split("\n\n").find((part) => part.startsWith("target open [chat]")) ?? "";
    expect(chat).not.toContain("maxInFlight");
    expect(chat).toMatch(/^ +level +warm-up/m);
    expect(requests).toBe(0);
  });

  it("prints levels, requests, the bounds and the invocations of a sweep, sending nothing", async () => {
    const config = {
      targets: [
        {
          id: "local",
          label: "Local",
          baseURL: url,
          apiKeyEnv: "KB_PLAN_KEY",
          model: "m",
          route: { gateway: "direct" },
        },
      ],
      // 2 levels: level 1 is 1 warm-up round + 10 rounds, level 4 is 1 + 3 rounds, of at most 100 s each.
      workload: { concurrency: [1, 4], requestsPerLevel: 10, warmupRequests: 1, requestTimeoutSeconds: 100 },
    };
    const file = join(dir, "local.json");
    writeFileSync(file, JSON.stringify(config));
    const result = await kneeboardHere(["plan", "--config", file, "--deployed"], { KB_PLAN_KEY: "" });
    expect(result.code).toBe(0);
    expect(result.out).toContain("KB_PLAN_KEY (not set here");
    expect(result.out).toContain("total: 20 measured requests, closed loop + 2 warm-up");
    // 1 100 s and 400 s: neither fits the 870 s left after one alone, so level 1 cannot be sure to fit.
    expect(result.out).toContain("upper bound 1,500 s, not sure to fit: level 1 alone");
    expect(result.out).toContain("top level: 4 streams x 50 chunks/s = 200 chunks/s");
    expect(result.out).toMatch(
      /threads "auto" \(the deployed one\) would run it on its own thread \(\d+ cores? here\)/,
    );
    expect(result.out).toContain("memory: the sweep Lambda gets 1,769 MB, about 1.0 vCPU");
    // Sized all the same, but a Lambda cannot reach this machine: the plan says so.
    expect(result.out).toContain(
      "warning: local is on this machine (127.0.0.1 or localhost): AWS cannot reach it, so deployed, every sweep of it fails",
    );
    expect(requests).toBe(0);
  });

  it("leads a local endpoint's plan with its levels, requests and time; the deployment is one line unless --deployed", async () => {
    const config = {
      targets: [{ id: "mine", label: "Mine", baseURL: url, model: "m", route: { gateway: "direct" } }],
      workload: { concurrency: [1, 2], requestsPerLevel: 8 },
    };
    const file = join(dir, "mine.json");
    writeFileSync(file, JSON.stringify(config));
    const result = await kneeboardHere(["plan", "--config", file]);
    expect(result.code).toBe(0);
    const [header, first, ...rest] = result.out.trimEnd().split("\n\n");
    expect(header).toContain(`${file} is valid: 1 target`);
    expect(first).toMatch(/^target mine \[chat\]/);
    expect(first).toMatch(/^ +level +warm-up +requests +expected s/m);
    expect(first).toContain("total: 16 measured requests");
    expect(first).toMatch(/duration expected: [\d,]+ s\n/);
    // Nothing of Lambda: no invocations, memory, cost or the AWS warning; one line says why and how to ask.
    const plan = [header, first, ...rest.slice(0, -1)].join("\n\n");
    for (const word of ["invocation", "Lambda", "vCPU", "cost", "AWS"]) expect(plan).not.toContain(word);
    expect(rest.at(-1)).toBe(
      "deployed: not sized, as every target is on this machine (127.0.0.1 or localhost), which AWS cannot reach; `kneeboard plan --deployed` sizes it anyway.",
    );
    const deployed = await kneeboardHere(["plan", "--config", file, "--deployed"]);
    expect(deployed.out).toContain(`a run may use ${DEFAULT_MAX_INVOCATIONS} invocations`);
    expect(deployed.out).toContain("warning: mine is on this machine (127.0.0.1 or localhost): AWS cannot reach it");
    expect(requests).toBe(0);
  });

  it("warns of a sweep that needs more invocations than a deployed run may use", async () => {
    // Five levels of 800 s: each fits an invocation of its own, and five are more than a run may use.
    const levels = Array.from({ length: DEFAULT_MAX_INVOCATIONS + 1 }, (_, i) => i + 1);
    const config = {
      targets: [
        { id: "long", label: "Long", baseURL: "https://example.com/v1", model: "m", route: { gateway: "direct" } },
      ],
      workload: { concurrency: levels, levelDurationSeconds: 800, warmupRequests: 0, requestTimeoutSeconds: 30 },
    };
    const file = join(dir, "long.json");
    writeFileSync(file, JSON.stringify(config));
    const result = await kneeboardHere(["plan", "--config", file]);
    expect(result.code).toBe(0);
    const n = levels.length;
    expect(result.out).toContain(`long [chat]: expected`);
    expect(result.out).toContain(`needs ${n} invocations (${n - 1} continuations)`);
    expect(result.out).toContain(
      `warning: long [chat] needs ${n} invocations at the expected durations, more than the ${DEFAULT_MAX_INVOCATIONS} a run may use`,
    );
  });

  it("prints a search's bisection levels as one row with their count, not one row each", async () => {
    // The example with a budget that does not end the planned levels (its default, the ladder's, stops
    // them after the doubling's first steps).
    const example = JSON.parse(readFileSync(join(EXAMPLES, "openrouter.json"), "utf8"));
    example.workload.concurrency.search.maxRequests = 100_000;
    example.$schema = undefined;
    const file = join(mkdtempSync(join(tmpdir(), "kneeboard-plan-search-")), "openrouter.json");
    writeFileSync(file, JSON.stringify(example));
    const result = await kneeboardHere(["plan", "--config", file]);
    for (const part of result.out.split("\n\n").filter((p) => p.startsWith("target "))) {
      const rows = part.split("\n").filter((line) => /^ +\d+ +\d+ +\d+ +[\d.,]+ +[\d,]+( +x \d+)?$/.test(line));
      const counted = rows.reduce((sum, row) => sum + Number(/x (\d+)$/.exec(row)?.[1] ?? 1), 0);
      // As many levels as the search's upper bound says, and no row the same as the one before it.
      expect(counted).toBe(Number(/search upper bound: (\d+) levels/.exec(part)?.[1]));
      expect(rows.some((row) => / x \d+$/.test(row))).toBe(true);
      const bare = rows.map((row) => row.replace(/ +x \d+$/, ""));
      expect(bare.every((row, i) => i === 0 || row !== bare[i - 1])).toBe(true);
    }
  });

  it("prices the deployment once, and README and docs/deploying.md quote that figure for the OpenRouter example", async () => {
    const result = await kneeboardHere(["plan", "--config", join(EXAMPLES, "openrouter.json")]);
    expect(result.code).toBe(0);
    // Public endpoints: no warning.
    expect(result.out).not.toContain("warning:");
    const [, perDay] = /cost: Lambda about (\$\d+\.\d\d) a day/.exec(result.out) ?? [];
    expect(perDay).toBeDefined();
    for (const doc of ["../README.md", "../docs/deploying.md"]) {
      const text = readFileSync(new URL(doc, import.meta.url), "utf8");
      expect(text).toContain(`about ${perDay} a day`);
    }
  });

  it("sizes the sweep Lambda from a fast target's expected rate: more cores, worker threads at the top level", async () => {
    const config = {
      targets: [
        {
          id: "fast",
          label: "Fast",
          baseURL: url,
          model: "m",
          route: { gateway: "direct" },
          expectedOutputTokensPerSecond: 2000,
        },
      ],
      workload: { concurrency: [1, 64] },
    };
    const file = join(dir, "fast.json");
    writeFileSync(file, JSON.stringify(config));
    const result = await kneeboardHere(["plan", "--config", file, "--deployed"]);
    expect(result.code).toBe(0);
    expect(result.out).toContain("top level: 64 streams x 2,000 chunks/s = 128,000 chunks/s");
    // 128,000 chunks/s over the 28,000 one thread is planned to carry: 5 cores, 5 x 1,769 MB.
    expect(result.out).toContain(
      "128,000 chunks/s, 457 % of what one client thread is planned to carry (28,000 chunks/s",
    );
    expect(result.out).toContain("memory: the sweep Lambda gets 8,845 MB, about 5.0 vCPU");
    expect(requests).toBe(0);
  });

  it("exits 2 on an invalid config, naming every problem by its path", async () => {
    const config = {
      targets: [
        {
          id: "Bad Id",
          label: "x",
          baseURL: url,
          model: "m",
          modle: "m",
          route: { gateway: "openrouter" },
          workload: { concurrency: [4, 2] },
        },
      ],
      workload: { requestsPerLevel: 8, levelDurationSeconds: 30 },
    };
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify(config));
    const result = await kneeboardHere(["plan", "--config", file]);
    expect(result.code).toBe(2);
    for (const path of [
      "targets[0].id",
      "targets[0].route.provider",
      "targets[0].workload.concurrency[1]",
      "targets[0].modle",
      "workload.levelDurationSeconds",
    ])
      expect(result.out).toContain(path);
    expect(result.out).not.toContain("duration");
    expect(result.out).not.toContain(" is valid");
    expect(result.out).toContain(`${file} is invalid:`);
    expect((await kneeboardHere(["plan"])).code).toBe(2);
    expect(requests).toBe(0);
  });

  it("shows a conversation's prompt tokens by turn and in all, and warns when a level's users cannot reach the last turn", async () => {
    const config = {
      targets: [{ id: "t", label: "T", baseURL: url, model: "m", route: { gateway: "direct" } }],
      workload: { concurrency: [1, 4], promptTokens: 40, maxTokens: 16, requestsPerLevel: 12 },
      scenarios: {
        chat: {},
        conversation: { conversation: { turns: 4, sharedPrefixTokens: 120, thinkSeconds: 1 } },
      },
    };
    const file = join(dir, "conversation.json");
    writeFileSync(file, JSON.stringify(config));
    const result = await kneeboardHere(["plan", "--config", file]);
    expect(result.code).toBe(0);
    const [chat, conversation] = result.out.split("target t [").slice(1);
    expect(chat).not.toContain("conversation:");
    expect(conversation).toContain("4 turns each, N users in conversation at level N, 1 s of think time");
    // 120 + 40; + 16 + 40 per turn.
    expect(conversation).toContain("prompt tokens by turn: 1: 160, 2: 216, 3: 272, 4: 328");
    expect(conversation).toContain("in all, a conversation: 976 prompt tokens (up to 768 a prefix cache can serve");
    expect(conversation).toContain("and 64 answer tokens");
    expect(conversation).toContain("warning: requestsPerLevel 12 is under turns x N at level 4");
    expect(requests).toBe(0);
  });
});
