/**
 * @module No paid request without a purpose, end to end: `kneeboard plan` says where the canary is off
 * by default (its model has no reference route) and what that saves, and `kneeboard run` then sends
 * none of it, counted at a reference server that records every prompt; a target that sets `canary`
 * runs it without a reference. Also the plan's other warnings before anything is paid for: a canary
 * too small for a verdict, a baseURL that misses its API, an OpenRouter route without a key (exit 2).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunDocument } from "@kneeboard/core/run";
import { CANARY_PROMPTS } from "@kneeboard/core/same-model";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PROFILE, configFolder, exitProblems, filesUnder, kneeboardHere } from "./cli-harness.ts";

const { dir, writeConfig } = configFolder("kneeboard-canary-");
let server: ReferenceServer;

beforeAll(async () => {
  // Streams of about 320 ms, as the CLI tests' server, so a loaded machine's levels stay valid.
  server = await startReferenceServer({
    models: [{ kind: "model", id: "m", profile: { ...CLI_PROFILE, slots: 32 } }],
    recordPrompts: true,
  });
});
afterAll(() => server.close());

/** A route of model `m` on the test server; `modelKey` says which model a reader takes it for. */
const route = (id: string, modelKey: string, extra: Record<string, unknown> = {}) => ({
  id,
  label: id,
  baseURL: server.url,
  model: "m",
  modelKey,
  route: { gateway: "direct" },
  ...extra,
});
const WORKLOAD = { concurrency: [1, 2], maxTokens: 8, requestsPerLevel: 4, warmupRequests: 0 };

/** The plan's section of one (target, scenario). */
const section = (out: string, id: string) => out.split("\n\n").find((part) => part.startsWith(`target ${id} [`)) ?? "";

/** How many requests reached the server carrying each canary prompt. */
const canaryRequests = () =>
  server.requests.filter((r) => CANARY_PROMPTS.prompts.some((p) => r.messages.some((m) => m.content === p.text)))
    .length;

describe("the canary by default", () => {
  it("is off for a model with no reference route: plan says so and what it saves, and the run sends none of it", async () => {
    // Prepare: `solo` has no reference route and sets nothing; `asked` has none either but sets a canary.
    const file = writeConfig("solo.json", {
      targets: [
        route("solo", "solo"),
        route("asked", "asked", { workload: { canary: { samplesPerPrompt: 2, maxTokens: 4, concurrency: 20 } } }),
      ],
      workload: WORKLOAD,
    });

    // Act: plan, then run.
    const planned = await kneeboardHere(["plan", "--config", file]);
    const before = server.requests.length;
    const data = join(dir, "solo-data");
    const ran = await kneeboardHere(["run", "--config", file, "--data", data]);

    // Assess: the plan's words.
    expect(planned.code).toBe(0);
    expect(section(planned.out, "solo")).toContain(
      "canary off: model solo has no reference route (saves 100 requests per run)",
    );
    const asked = section(planned.out, "asked");
    expect(asked).toContain("canary (same model?): 20 requests after the levels (10 prompts x 2");
    expect(asked).toContain(
      "warning: canary of 20 completions is under the 50 a verdict needs: it can only end too-few-samples",
    );
    expect(section(planned.out, "solo")).not.toContain("warning: canary");
    // Assess: the run sent the levels' requests of both, and canary prompts for `asked` alone.
    const docs: RunDocument[] = filesUnder(join(data, "runs")).map((f) => JSON.parse(readFileSync(f, "utf8")));
    expect(exitProblems([ran.code], docs)).toEqual([]);
    const byTarget = Object.fromEntries(docs.map((d) => [d.targetId, d]));
    expect(byTarget.solo?.canary).toBeUndefined();
    expect(byTarget.asked?.canary?.completions).toHaveLength(20);
    expect(canaryRequests()).toBe(20);
    // Levels of 4 + 4 requests each, and the 20 canary requests: nothing else was sent.
    expect(server.requests.length - before).toBe(2 * 8 + 20);
  }, 60_000);

  it("is on for each route of a model with a reference route, and off for a reference with no other route", async () => {
    const file = writeConfig("reference.json", {
      targets: [
        route("maker", "judged", { reference: true }),
        route("gateway", "judged"),
        route("lone", "lone", { reference: true }),
      ],
      workload: WORKLOAD,
    });
    const before = server.requests.length;
    const planned = await kneeboardHere(["plan", "--config", file]);
    expect(planned.code).toBe(0);
    for (const id of ["maker", "gateway"])
      expect(section(planned.out, id)).toContain(
        "canary (same model?): 100 requests after the levels (10 prompts x 10",
      );
    expect(section(planned.out, "lone")).toContain(
      "canary off: model lone has no other route to compare with this reference one (saves 100 requests per run)",
    );
    expect(planned.out).not.toContain("warning: canary");
    // Planning sends nothing.
    expect(server.requests.length).toBe(before);
  });
});

describe("kneeboard plan before anything is paid for", () => {
  it("warns once per target of a baseURL that does not end in /v1 or a documented path, naming it", async () => {
    const file = writeConfig("paths.json", {
      targets: [
        route("bare", "x", { baseURL: "https://api.example.com" }),
        route("chat", "x", { baseURL: "https://api.example.com/v1/chat/completions" }),
        route("gemini", "x", { baseURL: "https://generativelanguage.googleapis.com/v1beta/openai/" }),
        route("fine", "x", { baseURL: "https://api.example.com/v1" }),
      ],
      workload: WORKLOAD,
      scenarios: { chat: {}, rag: { promptTokens: 2000 } },
    });
    const planned = await kneeboardHere(["plan", "--config", file]);
    expect(planned.code).toBe(0);
    const warnings = planned.out.split("\n").filter((line) => line.includes("does not end in /v1"));
    expect(warnings).toEqual([
      expect.stringMatching(/^warning: target bare: baseURL https:\/\/api\.example\.com does not end in \/v1 /),
      expect.stringMatching(
        /^warning: target chat: baseURL https:\/\/api\.example\.com\/v1\/chat\/completions does not end in \/v1 /,
      ),
    ]);
  });

  it("refuses an OpenRouter route without apiKeyEnv: exit 2, one sentence at the target's path, nothing sent", async () => {
    const file = writeConfig("keyless.json", {
      targets: [
        {
          id: "or",
          label: "via OpenRouter",
          baseURL: "https://openrouter.ai/api/v1",
          model: "meta-llama/llama-3.1-8b-instruct",
          route: { gateway: "openrouter", provider: "Groq" },
        },
      ],
    });
    const data = join(dir, "keyless-data");
    for (const command of ["plan", "run"]) {
      const result = await kneeboardHere([command, "--config", file, ...(command === "run" ? ["--data", data] : [])]);
      expect(result.code).toBe(2);
      const problems = result.out.split("\n").filter((line) => line.startsWith("  targets"));
      expect(problems).toEqual([
        "  targets[0].apiKeyEnv: is required with gateway openrouter, which answers no request without a key: name the variable that holds it, such as OPENROUTER_API_KEY",
      ]);
      expect(result.out).not.toContain("    at ");
    }
    expect(filesUnder(data)).toEqual([]);
  });
});
