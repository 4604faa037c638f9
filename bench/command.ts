/**
 * @module The client's cost as a user pays it: `kneeboard run` from the compiled package (built here
 * first, as `npm run build -w packages/cli` builds it) in a child process, the CPU of all its threads
 * less a 1-request run's, against the floor client run the same way as plain JavaScript; and the
 * startup alone, `kneeboard --version`. Beside them, the same command from the TypeScript sources
 * through tsx, as the repository's bin runs it when nothing is built.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ReferenceProcess } from "@kneeboard/reference/process";
import { build } from "esbuild";

const ROOT = new URL("..", import.meta.url).pathname;
const STREAMS = 128;
const REQUESTS = 384;
const MAX_TOKENS = 200;
/** `kneeboard --version` is run this many times; the median is printed. */
const STARTUPS = 5;

/** Clock ticks a second of /proc's CPU times. */
const TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" })) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds (user + system, every thread) of the children this process has waited for:
 * /proc/self/stat's cutime and cstime (fields 16 and 17), which Linux adds a child to when it is
 * reaped. Read before and after one child, with no other child ending between, it is that child's.
 */
function reapedChildrenCpuS(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[13]) + Number(fields[14])) / TICKS;
}

/** Runs `node args` to its end (whatever its exit code); its CPU seconds, exit code and stdout. */
function cpuOfChild(args: string[]): Promise<{ cpuS: number; code: number | null; stdout: string }> {
  const before = reapedChildrenCpuS();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] });
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
  });
  // 'close' comes after the exit, when Node has reaped the child.
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ cpuS: reapedChildrenCpuS() - before, code, stdout }));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** The floor and kneeboard as commands against `server`, printed. */
export async function benchCommand(server: ReferenceProcess, log: (line: string) => void): Promise<void> {
  if (process.platform !== "linux") {
    log("\nthe command as a user runs it: skipped (reads /proc, Linux only)");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "kneeboard-bench-command-"));
  try {
    // The package as `npm run build -w packages/cli` builds it, and the floor bundled into plain JavaScript.
    const pkg = join(dir, "kneeboard");
    await promisify(execFile)(join(ROOT, "node_modules", ".bin", "tsx"), [
      join(ROOT, "packages/cli/scripts/build.ts"),
      "--out",
      pkg,
    ]);
    const floor = join(dir, "floor.mjs");
    await build({
      entryPoints: [join(ROOT, "bench/floor.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: floor,
      logLevel: "warning",
    });
    const compiled = [join(pkg, "kneeboard.js")];
    const sources = ["--import", "tsx/esm", join(ROOT, "packages/cli/bin/entry.ts")];

    const configFor = (concurrency: number, requests: number) => {
      const file = join(dir, `config-${requests}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          targets: [
            {
              id: "bench",
              label: "bench (simulated)",
              baseURL: server.url,
              model: "bench",
              route: { gateway: "direct" },
            },
          ],
          workload: {
            concurrency: [concurrency],
            maxTokens: MAX_TOKENS,
            requestsPerLevel: requests,
            warmupRequests: 0,
            promptTokens: 50,
            ignoreEos: true,
            canary: false,
          },
        }),
      );
      return file;
    };
    let runs = 0;
    /** `kneeboard run` of `requests` at `concurrency`: its CPU, exit code and the chunks its run document counts. */
    const kneeboard = async (bin: string[], concurrency: number, requests: number) => {
      const data = join(dir, `data-${runs++}`);
      mkdirSync(data);
      const run = await cpuOfChild([...bin, "run", "--config", configFor(concurrency, requests), "--data", data]);
      const runsDir = join(data, "runs", "bench");
      const [file] = readdirSync(runsDir);
      const doc = JSON.parse(readFileSync(join(runsDir, file as string), "utf8"));
      return { cpuS: run.cpuS, code: run.code, chunks: doc.levels[0].requests.ok * MAX_TOKENS };
    };
    const floorRun = async (concurrency: number, requests: number) => {
      const run = await cpuOfChild([floor, server.url, String(concurrency), String(requests), String(MAX_TOKENS)]);
      return { cpuS: run.cpuS, code: run.code, chunks: (JSON.parse(run.stdout) as { chunks: number }).chunks };
    };

    // In turns, so that a change in the machine's load falls on both.
    const floorOne = await floorRun(1, 1);
    const kneeboardOne = await kneeboard(compiled, 1, 1);
    const floorAll = await floorRun(STREAMS, REQUESTS);
    const kneeboardAll = await kneeboard(compiled, STREAMS, REQUESTS);
    const sourcesOne = await kneeboard(sources, 1, 1);
    const versions: number[] = [];
    const sourceVersions: number[] = [];
    for (let i = 0; i < STARTUPS; i++) {
      versions.push((await cpuOfChild([...compiled, "--version"])).cpuS);
      sourceVersions.push((await cpuOfChild([...sources, "--version"])).cpuS);
    }

    const per100k = (all: { cpuS: number; chunks: number }, one: { cpuS: number; chunks: number }) =>
      ((all.cpuS - one.cpuS) / (all.chunks - one.chunks)) * 100_000;
    const floorCost = per100k(floorAll, floorOne);
    const kneeboardCost = per100k(kneeboardAll, kneeboardOne);
    const pad = (value: string, width: number) => value.padStart(width);
    log(
      `\nthe command as a user runs it: a child process's CPU (every thread, user + system) less its 1-request run's, ${STREAMS} streams, ${REQUESTS} requests x ${MAX_TOKENS} chunks`,
    );
    log("client                                   run CPU s  1-request run CPU s  CPU s per 100k chunks  exit");
    const row = (name: string, all: { cpuS: number; code: number | null }, one: { cpuS: number }, cost: number) =>
      log(
        `${name.padEnd(39)}  ${pad(all.cpuS.toFixed(2), 9)}  ${pad(one.cpuS.toFixed(2), 19)}  ${pad(cost.toFixed(2), 21)}  ${pad(String(all.code), 4)}`,
      );
    row("floor (node:http, plain JavaScript)", floorAll, floorOne, floorCost);
    row("kneeboard run (the compiled package)", kneeboardAll, kneeboardOne, kneeboardCost);
    log(
      `ratio kneeboard / floor, as a user runs it: ${(kneeboardCost / floorCost).toFixed(2)} (goal <= 1.3)${kneeboardAll.code === 0 ? "" : "; the run exited non-zero (a level not valid), its CPU counted all the same"}`,
    );
    log(
      `startup: kneeboard --version ${median(versions).toFixed(2)} CPU s compiled (median of ${STARTUPS}; goal <= 0.3), ${median(sourceVersions).toFixed(2)} from the sources through tsx; a 1-request run ${kneeboardOne.cpuS.toFixed(2)} compiled, ${sourcesOne.cpuS.toFixed(2)} through tsx`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
