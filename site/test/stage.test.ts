import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stageDownloads } from "../src/build/stage.ts";
import { loadSiteData } from "../src/lib/site-data.ts";
import { fixtureStore } from "./fixture.ts";

describe("staging the downloads", () => {
  it("counts every run document's bytes, copied many at once", async () => {
    // Prepare
    const fixture = await fixtureStore(12);
    const data = await loadSiteData({ store: fixture.store, index: fixture.index, warn: () => {} });
    const staged = mkdtempSync(join(tmpdir(), "kneeboard-stage-"));
    // Act
    const { runBytes } = await stageDownloads(fixture.store, data, staged);
    // Assess
    const expected = data.allEntries.reduce((sum, e) => sum + statSync(join(fixture.root, e.key)).size, 0);
    expect(data.allEntries.length).toBeGreaterThan(32);
    expect(runBytes).toBe(expected);
    for (const e of data.allEntries) expect(statSync(join(staged, "data", e.key)).size).toBeGreaterThan(0);
  });
});
