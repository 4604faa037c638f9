/**
 * @module The store contracts on the folder implementations (FolderStore, StoreRunIndex on it,
 * FolderRunClaims). The AWS implementations run the same contracts in aws/store.contract.test.ts.
 */
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { modelChangeContract } from "../../testing/model-change.contract.ts";
import { runClaimsContract, runIndexContract, storeContract } from "../../testing/store.contract.ts";
import { FolderRunClaims } from "../claims/folder.ts";
import { runKey } from "../run/index.ts";
import { indexEntryFor } from "../run-index/index.ts";
import { StoreRunIndex } from "../run-index/store.ts";
import { syntheticRun } from "../synthetic/index.ts";
import { FolderStore } from "./folder.ts";

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "kneeboard-contract-"));
  tempDirs.push(dir);
  return dir;
}

afterAll(() => Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const doc = syntheticRun({
  targetId: "t-sample",
  startedAt: "2025-01-01T06:00:00Z",
  label: "Sample — ünïcødé",
  route: { gateway: "openrouter", provider: "groq" },
  singleStreamTokensPerSecond: 80,
  ttftMs: 200,
  saturationStreams: 8,
});
const sample = indexEntryFor(runKey(doc), doc);

storeContract("FolderStore", async () => ({ store: new FolderStore(tempDir()) }));

let indexRoot = "";
runIndexContract(
  "StoreRunIndex on FolderStore",
  async () => {
    indexRoot = tempDir();
    return new StoreRunIndex(new FolderStore(indexRoot));
  },
  sample,
  { forgetSummaries: (targetId) => rm(join(indexRoot, "index", "series", `${targetId}.json`)) },
);

runClaimsContract("FolderRunClaims", async () => new FolderRunClaims(tempDir()));

modelChangeContract("the folder store", async () => {
  const store = new FolderStore(tempDir());
  return { store, index: new StoreRunIndex(store) };
});
