/**
 * @module The tool-call phase in the terminal, end to end: `kneeboard run` prints each route's
 * tool-call shares and, after its sweeps, each verdict against the model's reference route;
 * `kneeboard check` prints the verdicts it recorded and the tool-call alert with its cause and
 * counts. Three routes of one model on the reference server: the reference, a faithful twin, and
 * a route that takes the tools and answers every request in prose. Nothing is timed.
 */
import { join } from "node:path";
import { TOOL_SUITE } from "@kneeboard/core/tool-calls";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PROFILE, configFolder, kneeboardHere } from "./cli-harness.ts";

const { dir, writeConfig } = configFolder("kneeboard-tool-cli-");
let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({
    models: [
      { kind: "model", id: "ref", profile: { ...CLI_PROFILE, slots: 16 } },
      { kind: "model", id: "twin", profile: { ...CLI_PROFILE, slots: 16, tools: { dialect: "vllm" } } },
      { kind: "model", id: "prose", profile: { ...CLI_PROFILE, slots: 16, tools: { prose: true } } },
    ],
  });
});
afterAll(() => server.close());

const route = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  label: id,
  baseURL: server.url,
  model: id,
  modelKey: "m",
  route: { gateway: "direct" },
  ...extra,
});

describe("tool calls in the terminal", () => {
  it("run prints the shares and the verdicts; check prints the verdicts it recorded and the alert's cause", async () => {
    // The prose route is listed first; `run` sweeps the reference first, so each route is judged against it.
    const file = writeConfig("tools.json", {
      targets: [route("prose"), route("ref", { reference: true }), route("twin")],
      workload: {
        concurrency: [1],
        maxTokens: 8,
        requestsPerLevel: 2,
        warmupRequests: 0,
        canary: false,
        toolCalls: { samplesPerPrompt: 1, concurrency: 8 },
      },
    });
    const data = join(dir, "data");
    const ran = await kneeboardHere(["run", "--config", file, "--data", data]);
    // (Whether the short levels are valid on a loaded machine is not what this tests: the exit code is left alone.)
    expect(ran.out.indexOf("ref [chat]: ref")).toBeLessThan(ran.out.indexOf("prose [chat]: prose"));
    const n = TOOL_SUITE.prompts.length;
    // Each sweep's table is followed by its phase: suite, requests, failures, every share counted.
    expect(ran.out).toContain(
      `tool calls (tools-v2, ${n} requests, 0 failed): call when needed (trigger) 0/75, no call when none 25/25, right tools 0/75, arguments parse 0/75, schema-valid arguments 0/75, argument values 0/75, both parallel calls 0/25, finish reason ${n}/${n}, structured output 0/20\n`,
    );
    expect(ran.out).toContain(
      `tool calls (tools-v2, ${n} requests, 0 failed): call when needed (trigger) 75/75, no call when none 25/25, right tools 75/75,`,
    );
    // After every sweep: the verdicts against the reference, the lower measures under a worse one.
    const verdicts = ran.out.slice(ran.out.indexOf("tool-call verdicts (`kneeboard check` records them):"));
    expect(verdicts).toMatch(
      /\n {2}prose \[chat\]: worse against ref \(cause stopped_calling\): lower than the reference's: /,
    );
    expect(verdicts).toContain("    call when needed (trigger) 0/75 prompts against 75/75 (75 lost, 0 gained), p = ");
    expect(verdicts).toContain("; trigger F1 0.00, exact call F1 0.00\n");
    expect(verdicts).toMatch(/\n {2}ref \[chat\]: same \(cause reference\): /);
    expect(verdicts).toMatch(
      /\n {2}twin \[chat\]: same against ref \(cause no_difference\): no drop detected on 120 prompts: .*; trigger F1 1\.00, exact call F1 1\.00\n/,
    );

    const checked = await kneeboardHere(["check", "--data", data]);
    expect(checked.code).toBe(0);
    expect(checked.out).toContain("tool-call verdicts recorded: 3\n");
    expect(checked.out).toMatch(/\n {2}prose \[chat\] \S+: worse against ref \(cause stopped_calling\): /);
    expect(checked.out).toContain(
      `    shares: call when needed (trigger) 0/75, no call when none 25/25, right tools 0/75,`,
    );
    // The prose route was judged worse on its only run: its alert opens, with its cause and counts.
    expect(checked.out).toMatch(
      /\n {2}\[critical\] open tool_calls_regression: prose: Tool calls worse than its reference ref: it stopped calling tools \(/,
    );
    expect(checked.out).toContain("      cause: stopped_calling, against the reference ref\n");
    expect(checked.out).toContain(
      "      call when needed (trigger): 0/75 prompts against the reference's 75/75 (75 lost, 0 gained), p = ",
    );
  }, 120_000);
});
