/** A fixture store for the site tests: synthetic (simulated) targets with history, a hostile label, a partial run, a broken file. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@kneeboard/core/random";
import { evaluateStore } from "@kneeboard/core/regress/check";
import { saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { syntheticRun } from "@kneeboard/core/synthetic";

export const HOSTILE_LABEL = `<img src=x onerror="window.__pwned=1"> & <script>window.__pwned=2</script>`;

/** The model two fixture targets serve by different routes (one model page, two curves). */
export const SHARED_MODEL_KEY = "shared-model-8b";

export const FIXTURE_TARGETS = [
  {
    id: "fast-small",
    label: "Fast small model",
    model: `acme/${SHARED_MODEL_KEY}`,
    single: 180,
    ttft: 120,
    saturation: 4,
    // List price, and a metered cost far from it: the page must say they differ.
    pricing: { inputPerMillionUsd: 0.1, outputPerMillionUsd: 0.2 },
    costUsdPerRequest: 0.0001,
  },
  {
    id: "slow-large",
    label: "Slow large model",
    model: `other-host/${SHARED_MODEL_KEY}`,
    single: 40,
    ttft: 600,
    saturation: 16,
    pricing: { hourlyUsd: 2 },
  },
  {
    id: "hostile",
    label: HOSTILE_LABEL,
    model: HOSTILE_LABEL,
    modelKey: "hostile-model",
    single: 90,
    ttft: 250,
    saturation: 8,
  },
  { id: "partial-one", label: "Target whose last run is partial", single: 120, ttft: 200, saturation: 2 },
] as const;

export const MALFORMED_KEY = "runs/slow-large/20991231T000000Z-broken.json";

/** Builds the fixture store; returns it, its index and the store folder. */
export async function fixtureStore(runsPerTarget = 12) {
  const root = mkdtempSync(join(tmpdir(), "kneeboard-site-fixture-"));
  const store = new FolderStore(root);
  const index = new StoreRunIndex(store);
  const random = seededRandom(7);
  for (const t of FIXTURE_TARGETS) {
    for (let r = 0; r < runsPerTarget; r++) {
      const last = r === runsPerTarget - 1;
      await saveRun(
        store,
        index,
        syntheticRun({
          targetId: t.id,
          label: t.label,
          model: "model" in t ? t.model : undefined,
          modelKey: "modelKey" in t ? t.modelKey : undefined,
          pricing: "pricing" in t ? t.pricing : undefined,
          costUsdPerRequest: "costUsdPerRequest" in t ? t.costUsdPerRequest : undefined,
          runId: `${t.id}-r${r}`,
          startedAt: new Date(Date.UTC(2026, 10, 1, 6 * r)).toISOString(),
          singleStreamTokensPerSecond: t.single,
          ttftMs: t.ttft,
          saturationStreams: t.saturation,
          status: last && t.id === "partial-one" ? "partial" : "complete",
          random,
        }),
      );
    }
  }
  // A run document that is not one: the site must skip it with a warning naming it.
  writeFileSync(join(root, MALFORMED_KEY), '{"schemaVersion": 1, "runId": 5}');
  await evaluateStore({ store, index, now: "2026-12-01T00:00:00.000Z" });
  return { store, index, root };
}
