/**
 * @module The README's "Measure your own endpoint", as a newcomer runs it: its config and its four
 * commands read from README.md, the config pointed at a reference server that serves its model and
 * wants a key in the variable it names, then `plan`, `run` and `site` in this process and `preview` as
 * a process of its own, serving what `site` built. The store and the site go to temporary folders,
 * never the repository's ./data or site/dist.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseCommand } from "@kneeboard/cli/commands";
import type { RunDocument } from "@kneeboard/core/run";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFolder, exitProblems, filesUnder, kneeboardHere } from "./cli-harness.ts";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const BIN = new URL("../packages/cli/bin/kneeboard.js", import.meta.url).pathname;
/** The key the server wants, in the variable the README's config names: never written or printed. */
const KEY = "sk-readme-7c1e9a40d2";

/** The README's section headed `## Measure your own endpoint`. */
const section = README.split(/^## /m).find((s) => s.startsWith("Measure your own endpoint\n")) ?? "";
/** The first fenced block in `lang` of the section. */
const fenced = (lang: string): string => {
  const [, body] = new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\n\`\`\``).exec(section) ?? [];
  if (body === undefined) throw new Error(`the README's "Measure your own endpoint" has no ${lang} block`);
  return body;
};

interface ReadmeTarget {
  id: string;
  label: string;
  baseURL: string;
  model: string;
  apiKeyEnv: string;
}
const config = JSON.parse(fenced("json")) as { targets: ReadmeTarget[]; workload: Record<string, unknown> };
const [target] = config.targets as [ReadmeTarget];
/** The README's commands, `npx kneeboard COMMAND ARGS` as [COMMAND, ...ARGS], a comment after them dropped. */
const commands = fenced("sh")
  .split("\n")
  .map((line) => line.replace(/\s+#.*$/, "").trim())
  .filter((line) => line.startsWith("npx kneeboard "))
  .map((line) => line.slice("npx kneeboard ".length).split(/\s+/));
const command = (name: string): string[] => {
  const found = commands.find(([first]) => first === name);
  if (!found) throw new Error(`the README's "Measure your own endpoint" does not run kneeboard ${name}`);
  return found;
};

let server: ReferenceServer;
let preview: ChildProcess | undefined;
const { dir, writeConfig } = configFolder("kneeboard-readme-");
const data = join(dir, "data");
const out = join(dir, "site");
const env = () => ({ [target.apiKeyEnv]: KEY });

/** A README command's arguments, its config file the one written here, its folders this test's own. */
function here(args: string[], extra: string[] = []): string[] {
  // The README leaves the folders at their defaults (./data, site/dist): the test names its own.
  expect(args.some((a) => a === "--data" || a === "--out")).toBe(false);
  const file = writeConfig("my.json", { ...config, targets: [{ ...target, baseURL: server.url }] });
  return [...args.map((a) => (a === "my.json" ? file : a)), ...extra];
}

beforeAll(async () => {
  // The model the README names, at 100 tok/s a stream, behind the key its config's variable holds.
  server = await startReferenceServer({
    models: [
      {
        kind: "model",
        id: target.model,
        profile: { stepBaseMs: 10, stepPerSeqMs: 0.1, slots: 8, prefillBaseMs: 2, prefillPerTokenMs: 0 },
      },
    ],
    apiKey: KEY,
  });
});

afterAll(async () => {
  if (preview && preview.exitCode === null) {
    const exited = new Promise((resolve) => preview?.once("exit", resolve));
    preview.kill("SIGTERM");
    await exited;
  }
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the README's own endpoint", () => {
  it("is four commands, plan, run, site and preview, over the smallest config: one target, a small workload", () => {
    expect(commands.map(([name]) => name)).toEqual(["plan", "run", "site", "preview"]);
    expect(config.targets).toHaveLength(1);
    expect(Object.keys(target).sort()).toEqual(["apiKeyEnv", "baseURL", "id", "label", "model", "route"]);
    expect(target.baseURL).toMatch(/\/v1$/);
    expect(config.workload).toEqual({ concurrency: [1, 2], requestsPerLevel: 8 });
  });

  it("plans, sending nothing", async () => {
    const before = server.counts().requests;
    const result = await kneeboardHere(here(command("plan")), env());
    expect(result.code, result.out).toBe(0);
    // What the README says it prints, first: the target's levels, requests and time, one row a level.
    const [, first, ...rest] = result.out.trimEnd().split("\n\n");
    expect(first).toMatch(new RegExp(`^target ${target.id} \\[chat\\]`));
    const levels = (config.workload.concurrency as number[]).map(String);
    expect(
      first
        ?.split("\n")
        .filter((line) => /^ +\d+ +\d+ +\d+ +[\d.]+ +[\d,]+$/.test(line))
        .map((l) => l.trim().split(/ +/)[0]),
    ).toEqual(levels);
    expect(first).toMatch(/total: \d+ measured requests/);
    expect(first).toMatch(/duration expected: [\d,]+ s\n/);
    // The endpoint is on this machine: no Lambda sizing, one line saying why.
    expect(rest.at(-1)).toMatch(/^deployed: not sized, as every target is on this machine/);
    expect(result.out).not.toContain("Lambda");
    expect(server.counts().requests).toBe(before);
  });

  it("runs, storing one run document of two levels under the data folder, the key nowhere", async () => {
    const result = await kneeboardHere(here(command("run"), ["--data", data]), env());
    const runs = filesUnder(join(data, "runs"));
    expect(runs).toHaveLength(1);
    const doc = JSON.parse(readFileSync(runs[0] as string, "utf8")) as RunDocument;
    expect(doc.targetId).toBe(target.id);
    expect(doc.levels).toHaveLength(2);
    // Exit 0, or 1 only for a run whose levels a loaded machine's client all flagged.
    expect(exitProblems([result.code], [doc]), result.out).toEqual([]);
    expect(result.out).not.toContain(KEY);
    for (const file of filesUnder(data)) expect(readFileSync(file, "utf8")).not.toContain(KEY);
  }, 120_000);

  it("builds the site from it", async () => {
    const result = await kneeboardHere(here(command("site"), ["--data", data, "--out", out]));
    expect(result.code, result.out).toBe(0);
    expect(existsSync(join(out, "index.html"))).toBe(true);
    expect(existsSync(join(out, "targets", target.id, "index.html"))).toBe(true);
  }, 180_000);

  it("previews it: --help exits 0, and the command serves the built site", async () => {
    const help = await kneeboardHere([...command("preview"), "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("usage: kneeboard preview");
    const args = here(command("preview"), ["--out", out, "--port", "0"]);
    expect(parseCommand("preview", args.slice(1))).toMatchObject({ out });

    // Serves until stopped: a process of its own, stopped by its id.
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    preview = child;
    const url = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stdout?.on("data", (chunk) => {
        text += String(chunk);
        const found = /at (http:\/\/\S+)/.exec(text)?.[1];
        if (found) resolve(found);
      });
      child.on("exit", (code) => reject(new Error(`preview exited ${code}: ${text}`)));
    });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(target.label);
  }, 60_000);
});
