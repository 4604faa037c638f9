/**
 * @module `kneeboard run` as real child processes that end badly: killed (SIGKILL) mid-level, stopped
 * with Ctrl-C (SIGINT) mid-level, and two runs sharing one data folder. Nothing finished is lost, no
 * reader sees half a file, and the store stays one that `check` and `site` read.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { RunDocument } from "@kneeboard/core/run";
import { loadPosition } from "@kneeboard/core/run";
import type { RunIndexEntry } from "@kneeboard/core/run-index";
import { type ReferenceServer, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitProblems } from "./cli-harness.ts";

const exec = promisify(execFile);
const BIN = new URL("../packages/cli/bin/kneeboard.js", import.meta.url).pathname;
/** 20 tokens at 20 ms a step: a request takes about 0.4 s, so a level lasts long enough to be cut in. */
const SLOW: StreamProfile = { stepBaseMs: 20, stepPerSeqMs: 0, slots: 32, prefillBaseMs: 2, prefillPerTokenMs: 0 };
const QUICK: StreamProfile = { stepBaseMs: 1, stepPerSeqMs: 0, slots: 32, prefillBaseMs: 1, prefillPerTokenMs: 0 };
/** Level 1 is 1 warm-up + 6 measured requests; a request count past this is level 2 under way. */
const LEVEL_ONE_REQUESTS = 7;
const dir = mkdtempSync(join(tmpdir(), "kneeboard-crash-"));
let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({
    recordPrompts: true,
    models: [
      { kind: "model", id: "slow", profile: SLOW },
      // Streams of about 400 ms: 3 % of them (12 ms) holds a loaded machine's client delay, so the
      // levels are seldom flagged. At 100 ms two runs beside other timed files once read "client
      // limited" and exited 1; the test now takes that exit for what it is (`exitProblems`).
      { kind: "model", id: "a", profile: { ...QUICK, stepBaseMs: 100 } },
      { kind: "model", id: "b", profile: { ...QUICK, stepBaseMs: 100 } },
    ],
  });
});
afterAll(async () => {
  await server.close();
});

/** Requests the server has read so far. */
const received = () => [...server.prompts.values()].reduce((a, b) => a + b, 0);

function configFile(name: string, targets: string[], workload: Record<string, unknown>): string {
  const file = join(dir, `${name}.json`);
  const target = (id: string) => ({ id, label: id, baseURL: server.url, model: id, route: { gateway: "direct" } });
  // No canary: these runs count what the server received (the canary has tests of its own).
  writeFileSync(file, JSON.stringify({ targets: targets.map(target), workload: { canary: false, ...workload } }));
  return file;
}

/** Every file under data, parsed: throws on any that is not whole JSON. */
function everyDocument(data: string): Map<string, unknown> {
  const docs = new Map<string, unknown>();
  for (const e of readdirSync(data, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    docs.set(path.slice(data.length + 1), JSON.parse(readFileSync(path, "utf8")));
  }
  return docs;
}

function runsIn(data: string): RunDocument[] {
  return [...everyDocument(data)].filter(([k]) => k.startsWith("runs/")).map(([, d]) => d as RunDocument);
}

function startRun(config: string, data: string, extra: string[] = []): ChildProcess {
  return spawn(process.execPath, [BIN, "run", "--config", config, "--data", data, ...extra], { stdio: "ignore" });
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );

/** Waits (bounded) until `ready` holds, polling every 10 ms. */
async function until(ready: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  for (let waited = 0; !ready(); waited += 10) {
    if (waited > limitMs) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function kneeboard(args: string[]): Promise<number> {
  try {
    await exec(process.execPath, [BIN, ...args]);
    return 0;
  } catch (error) {
    return (error as { code: number }).code;
  }
}

const SLOW_WORKLOAD = { concurrency: [1, 2, 4], requestsPerLevel: 6, warmupRequests: 1, maxTokens: 20 };

/** Starts a sweep of the slow target and resolves once it is in the middle of its second level. */
async function sweepIntoLevelTwo(name: string) {
  const data = join(dir, `${name}-data`);
  const before = received();
  const child = startRun(configFile(name, ["slow"], SLOW_WORKLOAD), data);
  const end = exited(child);
  // Past level 1's requests and the level-2 warm-up: level 2's measured requests are in flight.
  await until(() => received() - before >= LEVEL_ONE_REQUESTS + 2, "level 2 to start");
  return { child, end, data };
}

describe("kneeboard run killed or stopped in the middle of a level", () => {
  it("SIGKILL: the finished levels are on disk, the run reads as partial, check and site build", async () => {
    const { child, end, data } = await sweepIntoLevelTwo("killed");
    child.kill("SIGKILL");
    expect((await end).signal).toBe("SIGKILL");

    const runs = runsIn(data);
    expect(runs).toHaveLength(1);
    const doc = runs[0] as RunDocument;
    expect(doc.status).toBe("partial");
    expect(doc.partialReason).toMatch(/^the sweep had not finished after concurrency 1 /);
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1]);
    expect(doc.samples.filter((s) => s.level === 1)).toHaveLength(6);
    expect(doc.samples.every((s) => s.level === 1)).toBe(true);
    const index = everyDocument(data).get("index/runs/slow.json") as RunIndexEntry[];
    expect(index.map((e) => e.status)).toEqual(["partial"]);

    expect(await kneeboard(["check", "--data", data])).toBe(0);
    const out = join(dir, "killed-site");
    expect(await kneeboard(["site", "--data", data, "--out", out])).toBe(0);
    // The top index lists each model's file; slow's model's holds its latest run.
    const top = JSON.parse(readFileSync(join(out, "data", "index.json"), "utf8")) as {
      models: { index: string; targetIds: string[] }[];
    };
    const file = top.models.find((m) => m.targetIds.includes("slow"))?.index as string;
    const published = JSON.parse(readFileSync(join(out, file), "utf8")) as {
      targets: { id: string; latest: { status: string } | null }[];
    };
    expect(published.targets.find((t) => t.id === "slow")?.latest?.status).toBe("partial");
  }, 120_000);

  it("SIGINT: ends the level in flight, stores the run partial with the reason, exits 130", async () => {
    const { child, end, data } = await sweepIntoLevelTwo("interrupted");
    child.kill("SIGINT");
    expect((await end).code).toBe(130);

    const [doc] = runsIn(data) as [RunDocument];
    expect(doc.status).toBe("partial");
    expect(doc.partialReason).toBe("stopped by signal during concurrency 2");
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1]);
    expect(doc.samples.every((s) => s.level === 1)).toBe(true);
  }, 120_000);
});

describe("two kneeboard run processes on one data folder", () => {
  it("keep every run document whole and every run in the index", async () => {
    const data = join(dir, "shared-data");
    const config = configFile("shared", ["a", "b"], {
      concurrency: [1, 2],
      // More than the top N: at N or fewer requests a level is invalid for its workload.
      requestsPerLevel: 3,
      warmupRequests: 0,
      maxTokens: 4,
    });
    const children = [startRun(config, data, ["--repeat", "4"]), startRun(config, data, ["--repeat", "4"])];
    const ends = await Promise.all(children.map(exited));
    const docs = everyDocument(data);
    const runs = runsIn(data);
    expect(runs).toHaveLength(2 * 2 * 4);
    // Both exit 0 with every run complete; a run whose levels a loaded machine's client all flagged
    // fails, and its process exits 1 for that alone: whole documents and a whole index are the point.
    expect(ends.map((e) => e.signal)).toEqual([null, null]);
    expect(
      exitProblems(
        ends.map((e) => e.code as number),
        runs,
      ),
    ).toEqual([]);
    for (const id of ["a", "b"]) {
      const index = docs.get(`index/runs/${id}.json`) as RunIndexEntry[];
      const stored = runs.filter((r) => r.targetId === id).map((r) => r.runId);
      expect(index.map((e) => e.runId).sort()).toEqual(stored.sort());
    }
    expect([...docs.keys()].filter((k) => k.endsWith(".tmp") || k.endsWith(".lock"))).toEqual([]);
    expect(existsSync(join(data, "runs"))).toBe(true);
  }, 120_000);
});
