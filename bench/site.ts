/**
 * @module The site build at scale: a generated store of 100 targets x 360 runs (90 days at 4 a day),
 * built in a child process so its peak memory is its own. Prints build time, peak RSS, page sizes.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { indexEntryFor } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { putRun } from "@kneeboard/core/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { normal, seededRandom, syntheticRun } from "@kneeboard/reference";

const TARGETS = 100;
const RUNS = 360;

async function generate(root: string): Promise<void> {
  const store = new FolderStore(root);
  const index = new StoreRunIndex(store);
  const random = seededRandom(42);
  const start = Date.UTC(2026, 8, 1);
  for (let t = 0; t < TARGETS; t++) {
    const targetId = `target-${String(t).padStart(3, "0")}`;
    const single = 30 + random() * 200;
    const entries = [];
    for (let r = 0; r < RUNS; r++) {
      const doc = syntheticRun({
        targetId,
        label: `Generated model ${t} via provider ${t % 7} (simulated)`,
        runId: `${targetId}-${r}`,
        startedAt: new Date(start + r * 6 * 3600_000).toISOString(),
        singleStreamTokensPerSecond: single * (1 + 0.05 * normal(random)),
        ttftMs: 150 + t,
        saturationStreams: 2 + (t % 5) * 4,
        // Four requests per level keep the 36 000 documents near 0.5 GB; the figures' shape is what matters here.
        requestsPerLevel: 4,
        random,
      });
      entries.push(indexEntryFor(await putRun(store, doc), doc));
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

export async function benchSite(print: (line: string) => void): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "kneeboard-bench-site-"));
  try {
    const data = join(work, "data");
    const out = join(work, "dist");
    const began = performance.now();
    await generate(data);
    print(
      `\nsite build: generated ${TARGETS} targets x ${RUNS} runs in ${((performance.now() - began) / 1000).toFixed(0)} s`,
    );
    const child = new URL("./site-child.ts", import.meta.url).pathname;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", child, data, out], {
      maxBuffer: 16 * 1024 * 1024,
    });
    const result = JSON.parse(stdout.trim().split("\n").pop() as string) as { seconds: number; maxRssMB: number };
    const leaderboard = statSync(join(out, "index.html")).size;
    const largest = largestHtml(out);
    print("  figure                   measured     goal");
    print(`  build time               ${result.seconds.toFixed(1).padStart(6)} s    < 60 s`);
    print(`  peak memory (RSS)        ${result.maxRssMB.toFixed(0).padStart(6)} MB`);
    print(`  leaderboard HTML         ${(leaderboard / 1024).toFixed(0).padStart(6)} KB   < 150 KB`);
    print(
      `  largest page             ${(largest.bytes / 1024).toFixed(0).padStart(6)} KB   < 500 KB  (${largest.path})`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
