/**
 * @module One fixture site for the site tests that read the same fixture (`READERS`), built once a run
 * in a child process: Vitest's global setup starts it at once when the run may include one of them (no
 * file named, or one of them named), so the other files run while it builds; otherwise the first of them
 * to ask for it (`sharedSite`) starts it. Each waits for it in its `beforeAll`. Run as a script, this
 * file is that child.
 */
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Three runs per target (6 hours apart from 2026-11-01 00:00 UTC), built 6 hours after the last: all in the window. */
export const RUNS_PER_TARGET = 3;
export const BUILT_AT = "2026-11-01T18:00:00.000Z";
/**
 * The rag target that stops answering in its last run (at 14:00, before `BUILT_AT`): a non-chat alert,
 * raised by the core's own detection (read by `compare.test.ts`'s alerts page tests).
 */
export const STOPPED = "slow-large";

/**
 * A target with exactly three runs, a few percent apart (as in the report that asked for honest charts):
 * its history chart draws three points a panel (`layout.test.ts`).
 */
export const THREE = { id: "three-runs", label: "Three runs", single: [745, 740, 750], day: "2026-11-01" } as const;
/**
 * A target none of whose runs has a valid level (half its requests fail): its page must draw no empty chart.
 * Its label says it is simulated, as the reference targets' labels do.
 */
export const NO_VALID = { id: "no-valid-run", label: "Half of every level failing (simulated)", runs: 2 } as const;

/** What the build left for the tests, in `result.json` of its folder. */
export interface SharedSite {
  /** The fixture store's folder. */
  storeRoot: string;
  /** The built site: `<folder>/site/prefix/dist`, so it can be served from two folders up. */
  outDir: string;
  /** The warnings of the index sync and the build, one `warning: ...` line each. */
  warnings: string;
  /** Everything the build process printed (stdout and stderr), as a user of `kneeboard site` would see it. */
  output: string;
  /** Every path under the site's sources with its modification time, before and after the build. */
  sourcesBefore: string[];
  sourcesAfter: string[];
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder the shared fixture site is built in (see `sharedSite`). */
    sharedSiteDir: string;
  }
}

const SELF = new URL(import.meta.url).pathname;
/** The site's sources: the build must leave them as they were. */
const SOURCES = join(dirname(SELF), "..");

export const sourcesState = () =>
  (readdirSync(SOURCES, { recursive: true }) as string[])
    .filter((p) => !p.startsWith("dist"))
    .sort()
    .map((p) => `${p} ${statSync(join(SOURCES, p)).mtimeMs}`);

/** The test files that read the shared site. */
export const READERS = [
  "site.test.ts",
  "chart-text.test.ts",
  "compare.test.ts",
  "layout.test.ts",
  "layout-phone.test.ts",
  "layout-laptop.test.ts",
  "kinds.test.ts",
  "tool-calls.test.ts",
  "search.test.ts",
];

/**
 * Whether a `vitest` command line may run a reader: it names no test file (every argument an option
 * or an option's value: none holds a slash or ends in .ts), or it names a reader.
 */
export function mayReadSharedSite(argv: readonly string[]): boolean {
  const named = argv.filter((a) => !a.startsWith("-") && (a.includes("/") || a.endsWith(".ts")));
  return named.length === 0 || named.some((a) => READERS.some((r) => a.endsWith(`site/test/${r}`)));
}

/**
 * Vitest global setup: provides the build's folder, starts the build when the run may read it, and
 * stops a build still running and removes the folder at the end.
 */
export default function setup(project: { provide(key: "sharedSiteDir", value: string): void }) {
  const dir = mkdtempSync(join(tmpdir(), "kneeboard-shared-site-"));
  project.provide("sharedSiteDir", dir);
  if (mayReadSharedSite(process.argv.slice(2))) startBuild(dir);
  return () => {
    const pid = join(dir, "pid");
    // A build still running when the run ends (the run was stopped): stop it (gone already is fine).
    if (existsSync(pid) && !existsSync(join(dir, "exit.json")))
      try {
        process.kill(Number(readFileSync(pid, "utf8")));
      } catch {}
    const result = join(dir, "result.json");
    if (existsSync(result)) {
      const { storeRoot } = JSON.parse(readFileSync(result, "utf8")) as SharedSite;
      rmSync(storeRoot, { recursive: true, force: true });
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

/** Starts the build in `dir` unless a test file already did (creating a folder is the one atomic claim). */
function startBuild(dir: string): void {
  try {
    mkdirSync(join(dir, "started"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
    throw error;
  }
  const output = openSync(join(dir, "output.txt"), "w");
  const child = spawn(process.execPath, ["--import", "tsx", SELF, dir], { stdio: ["ignore", output, output] });
  writeFileSync(join(dir, "pid"), String(child.pid));
  child.on("exit", (code, signal) => {
    // The run's teardown may have stopped the build and removed its folder: nobody waits for it then.
    // Written whole, then renamed into place: a reader polling for it in another process must never
    // find it created but still empty.
    if (!existsSync(dir)) return;
    writeFileSync(join(dir, "exit.json.part"), JSON.stringify({ code, signal }));
    renameSync(join(dir, "exit.json.part"), join(dir, "exit.json"));
  });
}

/**
 * Starts the shared build if no file has yet, waits for it (up to `timeoutMs`) and returns what it
 * left; throws with its output when it failed. The file that started it waits too, so the child's exit
 * is always seen.
 */
export async function sharedSite(dir: string, timeoutMs = 240_000): Promise<SharedSite> {
  startBuild(dir);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(join(dir, "exit.json"))) {
    if (Date.now() > deadline) throw new Error(`the shared fixture site was not built in ${timeoutMs} ms (${dir})`);
    await sleep(100);
  }
  const output = readFileSync(join(dir, "output.txt"), "utf8");
  const exit = JSON.parse(readFileSync(join(dir, "exit.json"), "utf8")) as { code: number | null };
  if (exit.code !== 0 || !existsSync(join(dir, "result.json")))
    throw new Error(`the shared fixture site failed to build (exit ${exit.code}):\n${output}`);
  return { ...(JSON.parse(readFileSync(join(dir, "result.json"), "utf8")) as Omit<SharedSite, "output">), output };
}

/** The child: builds the fixture store and its site in `dir`, as `kneeboard site` does, and writes `result.json`. */
async function build(dir: string): Promise<void> {
  const { saveRun, syncIndex } = await import("@kneeboard/core/run-index");
  const { evaluateStore } = await import("@kneeboard/core/regress/check");
  const { syntheticRun } = await import("@kneeboard/core/synthetic");
  const { seededRandom } = await import("@kneeboard/core/random");
  const { buildSite } = await import("../src/build.ts");
  const {
    CONVERSATION,
    conversationRun,
    fixtureStore,
    RAG,
    SEARCHED,
    SEARCHED_SMALL,
    searchedRun,
    searchedRunSpec,
    TRACE,
    traceRun,
  } = await import("./fixture.ts");
  const sourcesBefore = sourcesState();
  const fixture = await fixtureStore(RUNS_PER_TARGET);
  // A rag run of one target that answers nothing: the core opens a "stopped answering" alert for (target, rag).
  await saveRun(
    fixture.store,
    fixture.index,
    syntheticRun({
      targetId: STOPPED,
      scenario: RAG.scenario,
      label: "Slow large model",
      runId: `${STOPPED}-rag-stopped`,
      startedAt: "2026-11-01T14:00:00.000Z",
      singleStreamTokensPerSecond: 40,
      ttftMs: 3600,
      saturationStreams: 16,
      concurrency: [1, 2, 4],
      errorRate: 1,
    }),
  );
  const random = seededRandom(3);
  for (const [r, single] of THREE.single.entries())
    await saveRun(
      fixture.store,
      fixture.index,
      syntheticRun({
        targetId: THREE.id,
        label: THREE.label,
        runId: `${THREE.id}-r${r}`,
        startedAt: new Date(Date.UTC(2026, 10, 1, 10, 45 + 10 * r)).toISOString(),
        singleStreamTokensPerSecond: single,
        ttftMs: 150,
        saturationStreams: 8,
        random,
      }),
    );
  for (let r = 0; r < NO_VALID.runs; r++)
    await saveRun(
      fixture.store,
      fixture.index,
      syntheticRun({
        targetId: NO_VALID.id,
        label: NO_VALID.label,
        runId: `${NO_VALID.id}-r${r}`,
        startedAt: new Date(Date.UTC(2026, 10, 1, 12, 10 * r + 5)).toISOString(),
        singleStreamTokensPerSecond: 300,
        ttftMs: 100,
        saturationStreams: 4,
        errorRate: 0.5,
        random,
      }),
    );
  // One run of each kind the fixture store lacks, each in a scenario of its own (the registry test reads their pages).
  const kindRun = (t: { id: string; label: string; model: string; scenario: string }, levels: number) =>
    syntheticRun({
      targetId: t.id,
      scenario: t.scenario,
      label: t.label,
      model: t.model,
      runId: `${t.id}-r0`,
      startedAt: "2026-11-01T13:00:00.000Z",
      singleStreamTokensPerSecond: 100,
      ttftMs: 200,
      saturationStreams: 4,
      concurrency: Array.from({ length: levels }, (_, i) => i + 1),
      random,
    });
  await saveRun(fixture.store, fixture.index, traceRun(kindRun(TRACE, TRACE.speedups.length), TRACE.speedups));
  await saveRun(fixture.store, fixture.index, conversationRun(kindRun(CONVERSATION, CONVERSATION.concurrency.length)));
  // Two closed loops whose levels were searched (issue 44), in a scenario of their own: probes, brackets and spend.
  for (const spec of [SEARCHED, SEARCHED_SMALL])
    for (let r = 0; r < spec.runs; r++) {
      const doc = syntheticRun({
        targetId: spec.id,
        scenario: spec.scenario,
        label: spec.label,
        model: spec.model,
        runId: `${spec.id}-r${r}`,
        startedAt: new Date(Date.UTC(2026, 10, 1, 13, 10 * r + 20)).toISOString(),
        singleStreamTokensPerSecond: spec.single,
        ttftMs: spec.ttft,
        saturationStreams: spec.saturation,
        concurrency: [...spec.probes].sort((a, b) => a - b),
        random,
      });
      await saveRun(fixture.store, fixture.index, searchedRun(doc, searchedRunSpec(spec, r)));
    }
  await evaluateStore({ store: fixture.store, index: fixture.index, now: BUILT_AT });
  const outDir = join(dir, "site", "prefix", "dist");
  let warnings = "";
  // Documents copied in by hand join the index, then the build; both warn.
  const warn = (message: string) => {
    warnings += `warning: ${message}\n`;
  };
  await syncIndex(fixture.store, fixture.index, warn);
  await buildSite({ store: fixture.store, index: fixture.index, outDir, warn, now: BUILT_AT });
  const result: Omit<SharedSite, "output"> = {
    storeRoot: fixture.root,
    outDir,
    warnings,
    sourcesBefore,
    sourcesAfter: sourcesState(),
  };
  writeFileSync(join(dir, "result.tmp"), JSON.stringify(result));
  renameSync(join(dir, "result.tmp"), join(dir, "result.json"));
}

if (process.argv[1] === SELF) await build(process.argv[2] as string);
