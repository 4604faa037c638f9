/**
 * A catalogue-shaped site (more routes than the leaderboard's row budget: 40 models of 4 routes each,
 * over 8 providers and 2 gateways, the direct one's alone more than the budget too), built for real
 * and read in headless Chromium: `/` folds to each model's best routes with every route one click
 * away, filters by provider and gateway are plain links to pages holding only those routes, and the
 * folded pages read on a phone and a laptop.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
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
import { CATALOGUE_PAGES, LAPTOP, PHONE, walk } from "./layout-walk.ts";

const MODELS = 40;
const ROUTES_PER_MODEL = 4;
const ROUTES = MODELS * ROUTES_PER_MODEL;
/** One route in 20 goes through the gateway, the rest direct: more than the row budget on one filter page too. */
const gatewayOf = (t: number) => (t % 20 === 19 ? "openrouter" : "direct");
const DIRECT = Array.from({ length: ROUTES }, (_, t) => gatewayOf(t)).filter((g) => g === "direct").length;
const BUILT_AT = "2026-11-02T00:00:00.000Z";

let work: string;
let outDir: string;
let server: StaticServer;
let browser: Browser;

const page = (path: string) => readFileSync(join(outDir, path, "index.html"), "utf8").replaceAll("&#39;", "'");
/** A page's ranking rows' target ids, top to bottom. */
const rowIds = (html: string) => [...html.matchAll(/<tr data-target="([^"]+)"/g)].map((m) => m[1] as string);
/** A route id's number: `route-017` is 17. */
const routeNumber = (id: string) => Number(id.slice("route-".length));
const modelOf = (id: string) => `model-${routeNumber(id) % MODELS}`;
const providerOf = (id: string) => `provider-${routeNumber(id) % 8}`;

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
          route: { gateway: gatewayOf(t), provider: providerOf(id) },
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
    expect(html).toContain(`its best 3 routes of ${ROUTES_PER_MODEL}; every route on the model's page`);
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
    // The 152 routes of one gateway fold too; the shown ones all go through it.
    expect(DIRECT).toBeGreaterThan(ROW_BUDGET);
    const direct = rowIds(page("s/chat/by/gateway/direct"));
    expect(direct.length).toBeLessThanOrEqual(ROW_BUDGET);
    expect(direct.every((id) => gatewayOf(routeNumber(id)) === "direct")).toBe(true);
    expect(page("s/chat/by/gateway/direct")).toContain(`${DIRECT} of ${ROUTES} routes`);
    // A link from `/` leads to a built page.
    for (const m of page("").matchAll(/href="(s\/chat\/by\/[^"]+)"/g))
      expect(existsSync(join(outDir, m[1] as string, "index.html")), m[1]).toBe(true);
  });

  it("folds the leaderboard at one concurrency the same way, each model's best routes, the rest on its page", () => {
    const html = page("at/4");
    const rows = [...html.matchAll(/<tr data-target="([^"]+)"/g)].map((m) => m[1] as string);
    expect(rows.length).toBeLessThanOrEqual(ROW_BUDGET);
    const byModel = new Map<string, number>();
    for (const id of rows) byModel.set(modelOf(id), (byModel.get(modelOf(id)) ?? 0) + 1);
    expect([byModel.size, Math.max(...byModel.values())]).toEqual([MODELS, 3]);
    expect(html).toContain(`${ROUTES - rows.length} more routes rank below`);
    expect(html).toContain(`${ROUTES} LLM endpoints at 4 users at once`);
  });

  it("compares the routes `/` shows, links each model's page for the rest, and keeps every page under 500 KB", () => {
    const compare = page("compare");
    const compared = [...compare.matchAll(/<tr data-target="([^"]+)"><td class="text" data-v=/g)].map((m) => m[1]);
    const picks = [...compare.matchAll(/<input type="checkbox" name="target" value="([^"]+)"/g)].map((m) => m[1]);
    const shown = rowIds(page("")).sort();
    expect([...compared].sort()).toEqual(shown);
    expect([...picks].sort()).toEqual(shown);
    // The overlay specs hold the compared targets' rows only.
    const specs = JSON.parse(
      /<script type="application\/json" id="compare-specs">(.*?)<\/script>/s.exec(compare)?.[1] ?? "{}",
    );
    const drawn = new Set(
      Object.values(specs).flatMap((s) =>
        (s as { data: { values: { targetId: string }[] } }).data.values.map((r) => r.targetId),
      ),
    );
    expect([...drawn].sort()).toEqual(shown);
    // Every model has routes left out (3 of 4 compared): each one's page is linked in the note.
    const note = /<p class="note folded" id="compare-folded">(.*?)<\/p>/s.exec(compare)?.[1] ?? "";
    expect(note).toContain(`compares ${shown.length} of the scenario's ${ROUTES} targets: each model's best 3 routes`);
    for (let m = 0; m < MODELS; m++) expect(note).toContain(`href="../models/model-${m}/"`);
    expect(page("s/chat/compare")).toContain('id="compare-folded"');
    const sizes = (readdirSync(outDir, { recursive: true }) as string[])
      .filter((n) => n.endsWith(".html"))
      .map((n) => ({ n, bytes: statSync(join(outDir, n)).size }))
      .sort((a, b) => b.bytes - a.bytes);
    console.log(
      `compare page ${(statSync(join(outDir, "compare", "index.html")).size / 1024).toFixed(0)} KB; largest pages: ${sizes
        .slice(0, 3)
        .map((s) => `${s.n} ${(s.bytes / 1024).toFixed(0)} KB`)
        .join(", ")}`,
    );
    expect(sizes[0]?.bytes).toBeLessThan(500 * 1024);
  });

  it("filters `/`'s rows in place as the reader types, and restores them when the field is cleared", async () => {
    const tab = await browser.newPage();
    try {
      await tab.goto(server.url);
      const all = rowIds(page(""));
      const visible = () =>
        tab.locator("tr[data-target]:visible").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-target")));
      expect(await visible()).toHaveLength(all.length);
      const headingsBefore = await tab.locator("tr.group:visible").count();
      expect(headingsBefore).toBeGreaterThanOrEqual(MODELS);
      const field = tab.getByLabel("Filter these rows by model, provider or gateway");
      // Typed a key at a time, as a reader does: provider-3's rows only (provider-3 is not provider-30).
      await field.pressSequentially("provider-3");
      const ofProvider = all.filter((id) => providerOf(id) === "provider-3");
      expect(ofProvider.length).toBeGreaterThan(0);
      expect((await visible()).sort()).toEqual([...ofProvider].sort());
      // A model's heading stays over each stretch of its rows with a row shown, and goes with the others.
      const headings = await tab.locator("tbody:has(tr.group)").evaluateAll((bodies) =>
        bodies.map((b) => ({
          heading: (b.querySelector("tr.group") as HTMLElement).offsetParent !== null,
          rows: Array.from(b.querySelectorAll("tr[data-target]")).some((r) => (r as HTMLElement).offsetParent !== null),
        })),
      );
      expect(headings.filter((h) => h.heading !== h.rows)).toEqual([]);
      const groups = await tab
        .locator("tr.group:visible")
        .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-model")));
      expect([...new Set(groups)].sort()).toEqual([...new Set(ofProvider.map(modelOf))].sort());
      expect(await tab.locator("#row-filter-status").textContent()).toContain(
        `${ofProvider.length} of ${all.length} rows on this page match`,
      );
      expect(await tab.locator("#row-filter-status a").getAttribute("href")).toBe("s/chat/by/provider/provider-3/");
      // A model's name keeps its rows; a gateway's, the routes through it.
      await field.fill("model-5");
      expect((await visible()).sort()).toEqual(all.filter((id) => modelOf(id) === "model-5").sort());
      await field.fill("openrouter");
      const viaGateway = all.filter((id) => gatewayOf(routeNumber(id)) === "openrouter");
      expect(viaGateway.length).toBeGreaterThan(0);
      expect((await visible()).sort()).toEqual(viaGateway.sort());
      await field.fill("");
      expect(await visible()).toEqual(all);
      expect(await tab.locator("tr.group:visible").count()).toBe(headingsBefore);
    } finally {
      await tab.close();
    }
  });

  it("without JavaScript shows no filter field, and the filter links lead to the filter pages", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const tab = await context.newPage();
      await tab.goto(server.url);
      expect(await tab.locator("#row-filter").isVisible()).toBe(false);
      await tab.locator("nav.filters").getByRole("link", { name: "provider-3", exact: true }).click();
      await tab.waitForURL(/\/s\/chat\/by\/provider\/provider-3\/$/);
      const rows = await tab
        .locator("tr[data-target]")
        .evaluateAll((r) => r.map((x) => x.getAttribute("data-target") ?? ""));
      expect(rows).toHaveLength(ROUTES / 8);
      expect(rows.every((id) => providerOf(id) === "provider-3")).toBe(true);
    } finally {
      await context.close();
    }
  });

  for (const pass of [PHONE, LAPTOP])
    it(`reads at ${pass.name}: no sideways scroll, no serious axe violation`, async () => {
      const pages = CATALOGUE_PAGES;
      const facts = await walk(browser, server.url, pass, { pages, axe: new Set(pages) });
      for (const path of pages) {
        const f = facts.get(path);
        expect(f?.scrollWidth, path).toBeLessThanOrEqual(f?.innerWidth ?? 0);
        expect(f?.axe, path).toEqual([]);
        expect(f?.contrastChecked, path).toBe(true);
      }
    }, 600_000);
});
