/**
 * @module `kneeboard run` end to end: one run document per target and per (target, scenario), exit 0
 * (or 1 only for runs whose client a loaded machine flagged), no secret anywhere. The exit codes of
 * bad configs and a wrong key, where nothing is measured, are in `cli-config.test.ts`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLI_WORKLOAD,
  cliTarget,
  configFolder,
  exitProblems,
  filesUnder,
  kneeboard,
  SECRET,
  startCliServer,
} from "./cli-harness.ts";

let server: ReferenceServer;
const { dir, writeConfig } = configFolder("kneeboard-cli-");

beforeAll(async () => {
  server = await startCliServer();
});
afterAll(() => server.close());

describe("kneeboard run", () => {
  const target = () => cliTarget(server);
  const workload = CLI_WORKLOAD;

  it("sweeps, stores one run document per target, and never writes or prints the key", async () => {
    const data = join(dir, "ok-data");
    const result = await kneeboard(
      ["run", "--config", writeConfig("ok.json", { targets: [target()], workload }), "--data", data],
      { KB_TEST_KEY: SECRET },
    );
    expect(result.out).toContain("aggregate tok/s");
    const files = filesUnder(data);
    const runs = filesUnder(join(data, "runs"));
    expect(runs).toHaveLength(1);
    // Exit 0, or 1 for a run whose levels a loaded machine's client all flagged: the files are the point.
    expect(exitProblems([result.code], [JSON.parse(readFileSync(runs[0] as string, "utf8"))])).toEqual([]);
    // The run document, its index entry and its series' summary, nothing else.
    const kept = files.map((f) => f.slice(data.length + 1).replace(/[^/]+\.json$/, "*.json")).sort();
    expect(kept).toEqual(["index/runs/*.json", "index/series/*.json", "runs/ref-m/*.json"]);
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
    const docs = filesUnder(join(data, "runs")).map((f) => JSON.parse(readFileSync(f, "utf8")));
    expect(exitProblems([result.code], docs)).toEqual([]);
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
