/**
 * An incremental build (publish's, after one sweep) reads the targets outside its models from their
 * series' summaries, not their every run, and writes the same pages and downloads a full build at the
 * same time writes: the shared fixture site (full) against an incremental build of one target.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunIndex } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildSite } from "../src/build.ts";
import { SHARED_MODEL_KEY } from "./fixture.ts";
import { BUILT_AT, sharedSite } from "./shared-site.ts";

const TARGET = "fast-small";
let full: string;
let out: string;
let readWhole: string[];
let targets: string[];

/** Every file under dir, relative, but the run documents (an incremental build leaves the site's). */
const filesOf = (dir: string) =>
  (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => statSync(join(dir, f)).isFile() && !f.startsWith("data/runs/"))
    .sort();

beforeAll(async () => {
  const shared = await sharedSite(inject("sharedSiteDir"));
  full = shared.outDir;
  const store = new FolderStore(shared.storeRoot);
  const index = new StoreRunIndex(store);
  targets = await index.targetIds();
  // What publish passes: each target's run documents' size, as the full build staged them.
  const runBytes: Record<string, number> = {};
  for (const id of targets)
    runBytes[id] = (await index.entries(id)).reduce((n, e) => n + statSync(join(shared.storeRoot, e.key)).size, 0);
  readWhole = [];
  const counting: RunIndex = {
    record: (...e) => index.record(...e),
    targetIds: () => index.targetIds(),
    summaries: (id) => index.summaries(id),
    entries: (id) => {
      readWhole.push(id ?? "(all)");
      return index.entries(id);
    },
  };
  out = mkdtempSync(join(tmpdir(), "kneeboard-incremental-"));
  await buildSite({
    store,
    index: counting,
    outDir: out,
    now: BUILT_AT,
    only: { targetIds: [TARGET], runBytes },
    warn: () => {},
  });
}, 300_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("an incremental build", () => {
  it("reads whole only the targets of its target's model; every other from its summaries", () => {
    const sameModel = JSON.parse(readFileSync(join(out, "data/index.json"), "utf8")).models.find(
      (m: { modelKey: string }) => m.modelKey === SHARED_MODEL_KEY,
    ).targetIds as string[];
    expect(sameModel).toContain(TARGET);
    expect(sameModel.length).toBeGreaterThan(1);
    expect([...new Set(readWhole)].sort()).toEqual([...sameModel].sort());
    expect(targets.length).toBeGreaterThan(sameModel.length + 5);
  });

  it("writes its target's and model's pages, the pages that list targets and its model's downloads, as a full build does", () => {
    const written = filesOf(out);
    expect(written).toContain(`targets/${TARGET}/index.html`);
    expect(written).toContain(`models/${SHARED_MODEL_KEY}/index.html`);
    expect(written).toContain("index.html");
    expect(written).toContain(`data/models/${SHARED_MODEL_KEY}/index.json`);
    expect(written).toContain(`data/models/${SHARED_MODEL_KEY}/runs.csv`);
    expect(written.filter((f) => f.startsWith("targets/") && !f.startsWith(`targets/${TARGET}/`))).toEqual([]);
    expect(written.filter((f) => f.startsWith("data/models/") && !f.includes(`/${SHARED_MODEL_KEY}/`))).toEqual([]);
    // Byte for byte what the full build wrote at the same time, every page that lists targets included.
    const differ = written.filter((f) => !readFileSync(join(out, f)).equals(readFileSync(join(full, f))));
    expect(differ).toEqual([]);
    expect(written.length).toBeGreaterThan(20);
  });
});
