/**
 * @module The site build at scale: a generated store of 100 targets x 3 scenarios x 120 runs (90 days
 * at 4 runs a day, the scenarios in turn), built in a child process so its peak memory is its own,
 * and a small one (2 targets, 1 scenario, 3 runs each): what a build costs before the data does.
 * `npm run bench -- catalogue` builds the catalogue: 1,000 targets x 3 scenarios x 120 runs, each
 * figure beside its goal (what publish's Lambda has). Prints build times, peak RSS, page sizes.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { runKey } from "@kneeboard/core/run";
import { indexEntryFor } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { standings } from "@kneeboard/core/standing";
import { putRun } from "@kneeboard/core/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { normal, seededRandom, syntheticRun } from "@kneeboard/reference";
import { serveStatic } from "@kneeboard/site/serve";
import { launchChromium } from "@kneeboard/site/test/browser";
import { CATALOGUE_PAGES, LAPTOP, PHONE, walk } from "@kneeboard/site/test/layout-walk";

const TARGETS = 100;
/** Each target's scenarios, swept in turn, with the TTFT their prompt sizes add. */
const SCENARIOS = [
  { name: "chat", extraTtftMs: 0 },
  { name: "rag", extraTtftMs: 600 },
  { name: "long-context", extraTtftMs: 4000 },
];
/** Runs of each target, all scenarios together: 120 of each. */
const RUNS = 360;

const START_MS = Date.UTC(2026, 8, 1);
/** An hour after the last generated run: the build's time, so the standing window holds the last 72 hours of runs. */
const BUILT_AT = new Date(START_MS + (RUNS - 1) * 6 * 3600_000 + 3600_000).toISOString();

/** The standing computation alone over the generated index (already read), best of a few passes. */
async function standingSeconds(root: string, config: { windowHours: number; maxRuns: number }): Promise<number> {
  const entries = await new StoreRunIndex(new FolderStore(root)).entries();
  let best = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 3; pass++) {
    const began = performance.now();
    const all = standings(entries, { now: BUILT_AT, config });
    best = Math.min(best, (performance.now() - began) / 1000);
    const series = TARGETS * SCENARIOS.length;
    if (all.size !== series) throw new Error(`standing of ${all.size} series, expected ${series}`);
  }
  return best;
}

/**
 * A store of `targets` targets, each with `runs` runs taking `scenarios` in turn. With `latestOnly`,
 * only each series' newest run document is stored (every run is indexed): the catalogue's 360,000
 * documents would be 11 GB on disk, and the build reads only the newest (the others it hard-links
 * into the site, a cost the 100-target case measures).
 */
async function generate(
  root: string,
  {
    targets,
    scenarios,
    runs,
    latestOnly = false,
  }: { targets: number; scenarios: typeof SCENARIOS; runs: number; latestOnly?: boolean },
): Promise<void> {
  const store = new FolderStore(root);
  const index = new StoreRunIndex(store);
  const random = seededRandom(42);
  for (let t = 0; t < targets; t++) {
    const targetId = `target-${String(t).padStart(4, "0")}`;
    const single = 30 + random() * 200;
    const entries = [];
    for (let r = 0; r < runs; r++) {
      const scenario = scenarios[r % scenarios.length] as (typeof SCENARIOS)[number];
      const doc = syntheticRun({
        targetId,
        scenario: scenario.name,
        label: `Generated model ${t} via provider ${t % 7} (simulated)`,
        // Eight routes a model, as a catalogue has (one model served by many providers).
        ...(latestOnly
          ? {
              label: `Model ${t >> 3} via provider ${t % 8} (simulated)`,
              model: `model-${t >> 3}`,
              route: { gateway: t % 2 ? ("openrouter" as const) : ("direct" as const), provider: `provider-${t % 8}` },
            }
          : {}),
        runId: `${targetId}-${r}`,
        startedAt: new Date(START_MS + r * 6 * 3600_000).toISOString(),
        singleStreamTokensPerSecond: single * (1 + 0.05 * normal(random)),
        ttftMs: 150 + t + scenario.extraTtftMs,
        saturationStreams: 2 + (t % 5) * 4,
        // Four requests per level keep the 36 000 documents near 0.5 GB; the figures' shape is what matters here.
        requestsPerLevel: 4,
        random,
      });
      const stored = !latestOnly || r >= runs - scenarios.length;
      entries.push(indexEntryFor(stored ? await putRun(store, doc) : runKey(doc), doc));
    }
    await index.record(...entries);
  }
}

function largestHtml(dir: string): { path: string; bytes: number } {
  let best = { path: "", bytes: 0 };
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    if (!name.endsWith(".html")) continue;
    const bytes = statSync(join(dir, name)).size;
    if (bytes > best.bytes) best = { path: name, bytes };
  }
  return best;
}

/** Builds the site of `data` into `out` in a child process (as `kneeboard site` does, or incrementally for `only`): its time, CPU time and peak RSS. */
async function buildInChild(
  data: string,
  out: string,
  at: string,
  only?: string,
): Promise<{ seconds: number; cpuSeconds: number; maxRssMB: number }> {
  const child = new URL("./site-child.ts", import.meta.url).pathname;
  const args = ["--import", "tsx", child, data, out, at, ...(only ? [only] : [])];
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as {
    seconds: number;
    cpuSeconds: number;
    maxRssMB: number;
  };
}

/** The catalogue's goals: what publish's Lambda has (2,048 MB, 15 minutes), with room. */
const CATALOGUE = { targets: 1000, maxRssMB: 2048, buildSeconds: 600, leaderboardKB: 300, pageKB: 500 };

export async function benchSite(print: (line: string) => void): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "kneeboard-bench-site-"));
  try {
    const small = join(work, "small");
    await generate(join(small, "data"), { targets: 2, scenarios: SCENARIOS.slice(0, 1), runs: 3 });
    const smallBuild = await buildInChild(join(small, "data"), join(small, "dist"), BUILT_AT);
    print(
      `\nsite build, 2 targets x 1 scenario x 3 runs: ${smallBuild.seconds.toFixed(1)} s (${smallBuild.cpuSeconds.toFixed(1)} s of CPU), peak RSS ${smallBuild.maxRssMB.toFixed(0)} MB`,
    );
    const data = join(work, "data");
    const out = join(work, "dist");
    const began = performance.now();
    await generate(data, { targets: TARGETS, scenarios: SCENARIOS, runs: RUNS });
    print(
      `\nsite build: generated ${TARGETS} targets x ${SCENARIOS.length} scenarios x ${RUNS / SCENARIOS.length} runs in ${((performance.now() - began) / 1000).toFixed(0)} s`,
    );
    const windowed = await standingSeconds(data, { windowHours: 72, maxRuns: 24 });
    const everyRun = await standingSeconds(data, { windowHours: RUNS * 6, maxRuns: RUNS });
    const result = await buildInChild(data, out, BUILT_AT);
    const leaderboard = statSync(join(out, "index.html")).size;
    const largest = largestHtml(out);
    print("  figure                   measured     goal");
    print(
      `  standing alone           ${(windowed * 1000).toFixed(0).padStart(6)} ms   (default window: 4 runs per series; every one of the ${RUNS} runs of a target: ${(everyRun * 1000).toFixed(0)} ms)`,
    );
    print(
      `  build time               ${result.seconds.toFixed(1).padStart(6)} s    < 90 s (standing included; ${result.cpuSeconds.toFixed(1)} s of CPU)`,
    );
    print(`  peak memory (RSS)        ${result.maxRssMB.toFixed(0).padStart(6)} MB`);
    print(`  leaderboard HTML         ${(leaderboard / 1024).toFixed(0).padStart(6)} KB   < 150 KB`);
    print(
      `  largest page             ${(largest.bytes / 1024).toFixed(0).padStart(6)} KB   < 500 KB  (${largest.path})`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The catalogue's pages read in headless Chromium at a phone's and a laptop's width, as the site tests read them. */
async function readability(out: string) {
  const server = await serveStatic(out);
  const browser = await launchChromium();
  try {
    const passes = [];
    const pages = CATALOGUE_PAGES.filter((p) => existsSync(join(out, p, "index.html")));
    for (const pass of [PHONE, LAPTOP]) {
      const facts = [...(await walk(browser, server.url, pass, { pages, axe: new Set(pages) })).values()];
      passes.push({
        pass: pass.name,
        pages: facts.length,
        overflowPx: Math.max(0, ...facts.map((f) => f.scrollWidth - f.innerWidth)),
        axe: facts.reduce((n, f) => n + (f.axe?.length ?? 0), 0),
        contrast: facts.filter((f) => f.contrastChecked).length,
      });
    }
    return passes;
  } finally {
    await browser.close();
    await server.close();
  }
}

/** `npm run bench -- catalogue`: 1,000 targets x 3 scenarios x 120 runs, a full build, each figure beside its goal. */
export async function benchCatalogue(print: (line: string) => void, targets = CATALOGUE.targets): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "kneeboard-bench-catalogue-"));
  try {
    const data = join(work, "data");
    const out = join(work, "dist");
    const began = performance.now();
    await generate(data, { targets, scenarios: SCENARIOS, runs: RUNS, latestOnly: true });
    print(
      `\ncatalogue: generated ${targets} targets x ${SCENARIOS.length} scenarios x ${RUNS / SCENARIOS.length} runs (${targets * RUNS} indexed, the newest document of each series stored) in ${((performance.now() - began) / 1000).toFixed(0)} s`,
    );
    const loadBefore = loadavg()[0] as number;
    const full = await buildInChild(data, out, BUILT_AT);
    const leaderboard = statSync(join(out, "index.html")).size;
    const largest = largestHtml(out);
    const readable = await readability(out);
    const htmlIn = (dir: string) =>
      (readdirSync(dir, { recursive: true }) as string[]).filter((n) => n.endsWith(".html"));
    const pages = htmlIn(out).length;
    // One more run of one target, an hour later, then what publish builds after that sweep.
    const store = new FolderStore(data);
    const last = syntheticRun({
      targetId: "target-0000",
      label: "Model 0 via provider 0 (simulated)",
      model: "model-0",
      route: { gateway: "direct", provider: "provider-0" },
      runId: "target-0000-new",
      startedAt: new Date(Date.parse(BUILT_AT) + 1800_000).toISOString(),
      singleStreamTokensPerSecond: 100,
      ttftMs: 150,
      saturationStreams: 2,
      requestsPerLevel: 4,
      random: seededRandom(1),
    });
    await new StoreRunIndex(store).record(indexEntryFor(await putRun(store, last), last));
    const incrementalOut = join(work, "incremental");
    const at = new Date(Date.parse(BUILT_AT) + 3600_000).toISOString();
    const incremental = await buildInChild(data, incrementalOut, at, "target-0000");
    const rewritten = htmlIn(incrementalOut);
    const row = (figure: string, measured: string, goal: string) =>
      print(`  ${figure.padEnd(32)} ${measured.padStart(10)}   ${goal}`);
    print(`  ${"figure".padEnd(32)} ${"measured".padStart(10)}   goal`);
    // CPU time beside the wall time: on a shared machine the wall time is what the others left over.
    row("full build", `${full.seconds.toFixed(0)} s`, `<= ${CATALOGUE.buildSeconds} s on 2 cores`);
    row("full build CPU time", `${full.cpuSeconds.toFixed(0)} s`, "(user + system, every thread)");
    row("full build peak RSS", `${full.maxRssMB.toFixed(0)} MB`, `<= ${CATALOGUE.maxRssMB} MB (publish's Lambda)`);
    row("pages", String(pages), "");
    row("incremental build", `${incremental.seconds.toFixed(1)} s`, "<= 30 s (one new run of one target)");
    row("incremental CPU time", `${incremental.cpuSeconds.toFixed(1)} s`, "(user + system, every thread)");
    row("incremental peak RSS", `${incremental.maxRssMB.toFixed(0)} MB`, "");
    row(
      "incremental pages",
      String(rewritten.length),
      `the target's ${rewritten.filter((p) => p.startsWith("targets/")).length}, its model's ${rewritten.filter((p) => p.startsWith("models/")).length}, and every page that lists targets`,
    );
    row("leaderboard HTML", `${(leaderboard / 1024).toFixed(0)} KB`, `<= ${CATALOGUE.leaderboardKB} KB`);
    row(
      "load average (1 min)",
      `${loadBefore.toFixed(1)} / ${(loadavg()[0] as number).toFixed(1)}`,
      "before / after (2 cores)",
    );
    const compare = Math.max(...SCENARIOS.map((sc) => statSync(join(out, "s", sc.name, "compare", "index.html")).size));
    row("largest compare page", `${(compare / 1024).toFixed(0)} KB`, `<= ${CATALOGUE.pageKB} KB`);
    row("largest page", `${(largest.bytes / 1024).toFixed(0)} KB`, `<= ${CATALOGUE.pageKB} KB (${largest.path})`);
    for (const r of readable) {
      row(`sideways scroll, ${r.pass}`, `${r.overflowPx} px`, `0 px (the widest over ${r.pages} pages)`);
      row(`serious axe, ${r.pass}`, String(r.axe), `0 (${r.pages} pages, contrast read on ${r.contrast})`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
