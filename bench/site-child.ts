/**
 * Builds the site from argv[2] into argv[3] at time argv[4] (as `kneeboard site` does) and prints its
 * time, its CPU time (user and system, every thread's: what a loaded machine does not stretch) and
 * peak RSS as JSON; with argv[5], a target id, an incremental build of that target's pages
 * (as publish does after one sweep), into a fresh folder.
 */
import { Writable } from "node:stream";
import { site } from "@kneeboard/cli/site";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { buildSite } from "@kneeboard/site/build";

const [dataDir, outDir, now, only] = process.argv.slice(2) as [string, string, string | undefined, string | undefined];
const quiet = new Writable({ write: (_c, _e, done) => done() });
const began = performance.now();
if (only) {
  const store = new FolderStore(dataDir);
  await buildSite({ store, index: new StoreRunIndex(store), outDir, now, only: { targetIds: [only], runBytes: {} } });
} else await site({ dataDir, outDir, now, io: { out: quiet, err: process.stderr } });
const seconds = (performance.now() - began) / 1000;
const usage = process.resourceUsage();
const cpuSeconds = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
console.log(JSON.stringify({ seconds, cpuSeconds, maxRssMB: usage.maxRSS / 1024 }));
