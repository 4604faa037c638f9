/**
 * A catalogue-shaped site (more routes than the leaderboard's row budget: 40 models of 8 routes each,
 * over 8 providers and 2 gateways), built for real and read in headless Chromium: `/` folds to each
 * model's best routes with every route one click away, filters by provider and gateway are plain
 * links to pages holding only those routes, and the folded pages read on a phone and a laptop.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { seededRandom, syntheticRun } from "@kneeboard/reference";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../src/build.ts";
import { ROW_BUDGET } from "../src/lib/fold.ts";
import { type StaticServer, serveStatic } from "../src/serve.ts";
import { launchChromium } from "./browser.ts";
import { LAPTOP, PHONE, walk } from "./layout-walk.ts";

const MODELS = 40;
const ROUTES_PER_MODEL = 8;
const ROUTES = MODELS * ROUTES_PER_MODEL;
const BUILT_AT = "2026-11-02T00:00:00.000Z";

let work: string;
let outDir: string;
let server: StaticServer;
let browser: Browser;

const page = (path: string) => readFileSync(join(outDir, path, "index.html"), "utf8").replaceAll("&#39;", "'");
/** A page's ranking rows' target ids, top to bottom. */
const rowIds = (html: string) => [...html.matchAll(/<tr data-target="([^"]+)"/g)].map((m) => m[1] as string);
const modelOf = (id: string) => `model-${Number(id.slice("route-".length)) % MODELS}`;
const providerOf = (id: string) => `provider-${Number(id.slice("route-".length)) % 8}`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "kneeboard-catalogue-"));
  const store = new FolderStore(join(work, "data"));
  const index = new StoreRunIndex(store);
  const random = seededRandom(7);
  for (let t = 0; t < ROUTES; t++) {
    const id = `route-${String(t).padStart(3, "0")}`;
    for (let r = 0; r < 2; r++)
      await saveRun(
        store,
        index,
        syntheticRun({
          targetId: id,
          label: `Model ${t % MODELS} via provider ${t % 8} (simulated)`,
          model: modelOf(id),
          route: { gateway: t % 2 ? "openrouter" : "direct", provider: providerOf(id) },
          runId: `${id}-${r}`,
          startedAt: new Date(Date.parse(BUILT_AT) - (2 - r) * 6 * 3600_000).toISOString(),
          // Far apart, so ranks are mostly unshared and a model's routes spread down the table.
          singleStreamTokensPerSecond: 20 + t * 3,
          ttftMs: 150,
          saturationStreams: 4,
          concurrency: [1, 4],
          requestsPerLevel: 4,
          random,
        }),
      );
  }
  outDir = join(work, "dist");
  await buildSite({ store, index, outDir, now: BUILT_AT, warn: () => {} });
  server = await serveStatic(outDir);
  browser = await launchChromium();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("a leaderboard of more routes than its row budget", () => {
  it("shows each model's best routes within the budget, and names every route's model", () => {
    const html = page("");
    const rows = rowIds(html);
    expect(rows.length).toBeLessThanOrEqual(ROW_BUDGET);
    expect(rows.length).toBeGreaterThan(ROW_BUDGET / 2);
    // Each model keeps the same number of routes (3: 40 x 3 = 120 fit 150, 40 x 4 do not), its best ones.
    const byModel = new Map<string, string[]>();
    for (const id of rows) byModel.set(modelOf(id), [...(byModel.get(modelOf(id)) ?? []), id]);
    expect(byModel.size).toBe(MODELS);
    for (const [model, ids] of byModel) {
      expect(ids.length, model).toBe(3);
      // Faster routes have higher numbers here: a model's best are its highest-numbered routes.
      const all = Array.from({ length: ROUTES }, (_, t) => `route-${String(t).padStart(3, "0")}`).filter(
        (id) => modelOf(id) === model,
      );
      expect([...ids].sort(), model).toEqual(all.slice(-3).sort());
    }
    // Every model's page is linked from the page, and says so where routes are folded away.
    for (let m = 0; m < MODELS; m++) expect(html).toContain(`href="models/model-${m}/"`);
    expect(html).toContain("its best 3 routes of 8; every route on the model's page");
    expect(html).toContain(`${ROUTES - rows.length} more routes rank below`);
    expect(statSync(join(outDir, "index.html")).size).toBeLessThan(300 * 1024);
  });

  it("lists every route of a model on its page", () => {
    // Its routes table first; the level tables below repeat them.
    expect([...new Set(rowIds(page("models/model-5")))].sort()).toEqual(
      Array.from({ length: ROUTES_PER_MODEL }, (_, i) => `route-${String(5 + i * MODELS).padStart(3, "0")}`),
    );
  });

  it("filters by provider and by gateway with links to pages of only those routes", () => {
    const html = page("");
    for (let p = 0; p < 8; p++) expect(html).toContain(`href="s/chat/by/provider/provider-${p}/"`);
    expect(html).toContain('href="s/chat/by/gateway/direct/"');
    expect(html).toContain('href="s/chat/by/gateway/openrouter/"');
    const provider = rowIds(page("s/chat/by/provider/provider-3"));
    expect(provider.length).toBe(ROUTES / 8);
    expect(provider.every((id) => providerOf(id) === "provider-3")).toBe(true);
    // 160 routes of one gateway fold too; the shown ones all go through it.
    const direct = rowIds(page("s/chat/by/gateway/direct"));
    expect(direct.length).toBeLessThanOrEqual(ROW_BUDGET);
    expect(direct.every((id) => Number(id.slice("route-".length)) % 2 === 0)).toBe(true);
    expect(page("s/chat/by/gateway/direct")).toContain(`${ROUTES / 2} of ${ROUTES} routes`);
    // A link from `/` leads to a built page.
    for (const m of page("").matchAll(/href="(s\/chat\/by\/[^"]+)"/g))
      expect(existsSync(join(outDir, m[1] as string, "index.html")), m[1]).toBe(true);
  });

  for (const pass of [PHONE, LAPTOP])
    it(`reads at ${pass.name}: no sideways scroll, no serious axe violation`, async () => {
      const pages = ["", "s/chat/by/provider/provider-3/", "s/chat/by/gateway/direct/", "models/model-5/"];
      const facts = await walk(browser, server.url, pass, { pages, axe: new Set(pages) });
      for (const path of pages) {
        const f = facts.get(path);
        expect(f?.scrollWidth, path).toBeLessThanOrEqual(f?.innerWidth ?? 0);
        expect(f?.axe, path).toEqual([]);
        expect(f?.contrastChecked, path).toBe(true);
      }
    }, 600_000);
});
