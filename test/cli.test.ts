/**
 * @module `kneeboard run` end to end, sweeps that must come out valid: one run document per target and
 * per (target, scenario), exit 0, no secret anywhere. The exit codes of bad configs and a wrong key,
 * where nothing is measured, are in `cli-config.test.ts`.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const BIN = new URL("../packages/cli/bin/kneeboard.js", import.meta.url).pathname;
const SECRET = "sk-test-4f9c2a7e1b8d";
let server: ReferenceServer;
const dir = mkdtempSync(join(tmpdir(), "kneeboard-cli-"));

async function kneeboard(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}
const writeConfig = (name: string, config: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config));
  return file;
};
const filesUnder = (root: string): string[] =>
  existsSync(root)
    ? readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name))
    : [];

beforeAll(async () => {
  server = await startReferenceServer({
    models: [
      {
        kind: "model",
        id: "m",
        // Streams of about 320 ms: a loaded machine's client delay stays within 3 % of them, so the
        // levels are valid and the run complete (a run with no valid level fails, exit 1).
        profile: { stepBaseMs: 40, stepPerSeqMs: 0.1, slots: 8, prefillBaseMs: 2, prefillPerTokenMs: 0 },
      },
    ],
    apiKey: SECRET,
  });
});
afterAll(() => server.close());

describe("kneeboard run", () => {
  const target = () => ({
    id: "ref-m",
    label: "m (simulated)",
    baseURL: server.url,
    apiKeyEnv: "KB_TEST_KEY",
    model: "m",
    route: { gateway: "direct" },
  });
  // No canary: these runs count what they send (the canary has tests of its own, test/same-model.test.ts).
  const workload = { concurrency: [1, 2], maxTokens: 8, requestsPerLevel: 4, warmupRequests: 0, canary: false };

  it("sweeps, stores one run document per target, and never writes or prints the key", async () => {
    const data = join(dir, "ok-data");
    const result = await kneeboard(
      ["run", "--config", writeConfig("ok.json", { targets: [target()], workload }), "--data", data],
      { KB_TEST_KEY: SECRET },
    );
    expect(result.code).toBe(0);
    expect(result.out).toContain("aggregate tok/s");
    const files = filesUnder(data);
    const runs = filesUnder(join(data, "runs"));
    expect(runs).toHaveLength(1);
    // The run document and its index entry, nothing else.
    expect(files.map((f) => f.slice(data.length + 1).split("/")[0]).sort()).toEqual(["index", "runs"]);
    const doc = JSON.parse(readFileSync(runs[0] as string, "utf8"));
    expect(doc.levels.map((l: { requests: { ok: number } }) => l.requests.ok)).toEqual([4, 4]);
    expect(result.out).not.toContain(SECRET);
    for (const file of files) expect(readFileSync(file, "utf8")).not.toContain(SECRET);
  });

  it("sweeps each (target, scenario), --repeat interleaved over the pairs, the scenario in each document and table", async () => {
    const data = join(dir, "scenario-data");
    const config = {
      targets: [target()],
      workload,
      scenarios: { chat: {}, rag: { promptTokens: 64, concurrency: [1] } },
    };
    const result = await kneeboard(
      ["run", "--config", writeConfig("scenarios.json", config), "--data", data, "--repeat", "2"],
      { KB_TEST_KEY: SECRET },
    );
    expect(result.code).toBe(0);
    const docs = filesUnder(join(data, "runs")).map((f) => JSON.parse(readFileSync(f, "utf8")));
    const order = docs
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt))
      .map((d: { scenario: string; levels: unknown[]; workload: { promptTokens: number } }) => [
        d.scenario,
        d.levels.length,
        d.workload.promptTokens,
      ]);
    expect(order).toEqual([
      ["chat", 2, 150],
      ["rag", 1, 64],
      ["chat", 2, 150],
      ["rag", 1, 64],
    ]);
    const entries = JSON.parse(readFileSync(join(data, "index", "runs", "ref-m.json"), "utf8"));
    expect(entries.map((e: { scenario: string }) => e.scenario).sort()).toEqual(["chat", "chat", "rag", "rag"]);
    expect(result.out).toContain("ref-m [rag]: m (simulated)");
    expect(result.out).toContain("ref-m [chat]: m (simulated)");
  });
});
