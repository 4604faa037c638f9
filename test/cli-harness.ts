/**
 * @module What the CLI's end-to-end tests share: the `kneeboard` command run as a process or in this
 * process, a config folder, the reference server they sweep, and how a run's exit code is judged where
 * the test is not about the client's health.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import { main } from "@kneeboard/cli/main";
import type { RunDocument } from "@kneeboard/core/run";
import { type ReferenceServer, type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { statusProblems } from "@kneeboard/test-support/accuracy";

const run = promisify(execFile);
const BIN = new URL("../packages/cli/bin/kneeboard.js", import.meta.url).pathname;
/** The key the test server wants: it must never reach a file, a log line or a page. */
export const SECRET = "sk-test-4f9c2a7e1b8d";

/** Runs `kneeboard` with args (and env added), returning its exit code and everything it printed. */
export async function kneeboard(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

/**
 * `kneeboard ARGS` in this process (no second start-up of tsx on a loaded machine): its exit code and
 * everything it printed. `env` is set on process.env for the call and put back after it (a variable
 * that was unset is deleted again), so the command reads it as a spawned one would read its own.
 */
export async function kneeboardHere(args: string[], env: Record<string, string> = {}) {
  let text = "";
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const saved = Object.keys(env).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  try {
    const code = await main(args, {
      out: sink as unknown as typeof process.stdout,
      err: sink as unknown as typeof process.stderr,
    });
    return { code, out: text };
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** A fresh folder, and a writer of config files into it (a string as is, anything else as JSON). */
export function configFolder(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const writeConfig = (name: string, config: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config));
    return file;
  };
  return { dir, writeConfig };
}

/** Every file under root (none when it does not exist). */
export const filesUnder = (root: string): string[] =>
  existsSync(root)
    ? readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name))
    : [];

/** The CLI tests' model: 40 ms a token, so a stream lasts long enough that a busy machine's client delay stays within 3 % of it. */
export const CLI_PROFILE: StreamProfile = {
  stepBaseMs: 40,
  stepPerSeqMs: 0.1,
  slots: 8,
  prefillBaseMs: 2,
  prefillPerTokenMs: 0,
};

/**
 * The reference server the CLI tests sweep: model `m` with streams of about 320 ms, so a loaded
 * machine's client delay stays within 3 % of them and the levels are valid (a run with no valid level
 * fails, exit 1); it wants `SECRET`.
 */
export function startCliServer(): Promise<ReferenceServer> {
  return startReferenceServer({
    models: [{ kind: "model", id: "m", profile: CLI_PROFILE }],
    apiKey: SECRET,
  });
}

/** The one target the CLI tests sweep: model `m` of the test server, its key in `KB_TEST_KEY`. */
export const cliTarget = (server: ReferenceServer) => ({
  id: "ref-m",
  label: "m (simulated)",
  baseURL: server.url,
  apiKeyEnv: "KB_TEST_KEY",
  model: "m",
  route: { gateway: "direct" },
});

/** No canary: these runs count what they send (the canary has tests of its own, test/same-model.test.ts). */
export const CLI_WORKLOAD = {
  concurrency: [1, 2],
  maxTokens: 8,
  requestsPerLevel: 4,
  warmupRequests: 0,
  canary: false,
};

/**
 * Why `kneeboard run` processes that stored `runs` between them should not have exited with `codes`,
 * in words; empty when right. With no failed run every process exits 0; a failed run makes its
 * process exit 1, and a run may fail only because each of its levels flagged its own client
 * (`statusProblems`): a loaded machine's doing, which a test not about the client's health accepts.
 */
export function exitProblems(codes: readonly number[], runs: readonly RunDocument[]): string[] {
  const problems = runs.flatMap((doc) => statusProblems(doc, "complete").map((p) => `${doc.runId}: ${p}`));
  const failed = runs.some((doc) => doc.status === "failed");
  if (failed ? !codes.every((c) => c === 0 || c === 1) || !codes.includes(1) : codes.some((c) => c !== 0))
    problems.push(`exit codes [${codes}] with ${failed ? "a failed run" : "no failed run"}`);
  return problems;
}

/** An output stream that records each write and how many requests `server` had received by then. */
export function countingSink(server: ReferenceServer) {
  const writes: { text: string; receivedBefore: number }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      writes.push({ text: String(chunk), receivedBefore: server.counts().requests });
      done();
    },
  });
  return { stream, writes, text: () => writes.map((w) => w.text).join("") };
}
