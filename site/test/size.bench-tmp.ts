import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@kneeboard/core/random";
import { saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { it } from "vitest";
import { buildSite } from "../src/build.ts";

it("measures", async () => {
  const root = mkdtempSync(join(tmpdir(), "kb-size-"));
  const store = new FolderStore(root);
  const index = new StoreRunIndex(store);
  const random = seededRandom(3);
  for (let t = 0; t < 100; t++)
    for (let r = 0; r < 2; r++)
      await saveRun(store, index, syntheticRun({
        targetId: `target-${t}`, label: `Target number ${t} via some provider`, model: `org/model-${Math.floor(t / 3)}`,
        runId: `r${t}-${r}`, startedAt: new Date(Date.UTC(2026, 10, 1, 6 * r)).toISOString(),
        singleStreamTokensPerSecond: 50 + t, ttftMs: 200, saturationStreams: 8, random,
        pricing: t % 2 ? { inputPerMillionUsd: 0.1, outputPerMillionUsd: 0.3 } : null, costUsdPerRequest: t % 3 ? 0.0001 : null,
      }));
  const out = join(mkdtempSync(join(tmpdir(), "kb-out-")), "dist");
  await buildSite({ store, index, outDir: out, now: "2026-11-01T18:00:00Z", warn: () => {} });
  const bytes = statSync(join(out, "index.html")).size;
  console.log(`LEADERBOARD_BYTES ${bytes}`, `AT16 ${statSync(join(out, "at/16/index.html")).size}`, `MODEL ${statSync(join(out, "models/model-0/index.html")).size}`);
  void readFileSync;
}, 900_000);
