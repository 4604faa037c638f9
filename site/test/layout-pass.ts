/**
 * @module The per-page tests of one pass of the layout walk (`layout-walk.ts`), for the test file of that
 * pass: its pages are loaded once in its `beforeAll`, and each test judges the facts read.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type StaticServer, serveStatic } from "../src/serve.ts";
import { launchChromium } from "./browser.ts";
import {
  AXE_PAGES,
  EXTREMES,
  htmlOf,
  isRankingPage,
  LAPTOP,
  META,
  type PageFacts,
  planSite,
  planWalk,
  type SitePlan,
  templateOf,
  type Walk,
  walk,
} from "./layout-walk.ts";
import { sharedSite, THREE } from "./shared-site.ts";

/** The rank a cell shows as a number: `=2` is 2, `—` (unranked) sorts after every rank. */
export const rankValue = (label: string) => (label === "—" ? Number.POSITIVE_INFINITY : Number(label.replace("=", "")));

/** Registers the per-page tests of `pass` in the calling test file. */
export function describePass(pass: Walk): void {
  let browser: Browser;
  let server: StaticServer;
  let outDir: string;
  let site: SitePlan;
  let plan: ReturnType<typeof planWalk>;
  let facts: Map<string, PageFacts>;

  /** The pass's findings of one kind on the pages it loads, "page: finding", in page order. */
  function everyPage(finding: (f: PageFacts, path: string) => string[]): string[] {
    return plan.pages.flatMap((path) => {
      const f = facts.get(path);
      if (!f) return [`${path || "/"}: not walked`];
      return finding(f, path).map((x) => `${path || "/"}: ${x}`);
    });
  }

  beforeAll(async () => {
    // The fixture site the site tests share (see shared-site.ts), built once a run.
    ({ outDir } = await sharedSite(inject("sharedSiteDir")));
    site = planSite(outDir);
    plan = planWalk(site, pass);
    server = await serveStatic(outDir);
    browser = await launchChromium();
    facts = await walk(browser, server.url, pass, plan);
    // Long: on a shared two-core machine under load, axe alone takes tens of seconds a page.
  }, 1_800_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  describe(`every variant of every built page at ${pass.name}`, () => {
    it("is loaded, by the pages of each variant with the most extreme data", () => {
      const variants = (paths: string[]) => new Set(paths.map((p) => site.variants.get(p)));
      expect(variants(plan.pages)).toEqual(variants(site.pages));
      expect(new Set(plan.pages.map(templateOf))).toEqual(new Set(site.pages.map(templateOf)));
      // Each measure's widest page of each variant is loaded, so no other page of it holds wider data.
      for (const [name, measure] of Object.entries(EXTREMES))
        for (const variant of variants(site.pages)) {
          const of = site.pages.filter((p) => site.variants.get(p) === variant);
          const widest = Math.max(...of.map((p) => measure(htmlOf(outDir, p))));
          const loaded = of.filter((p) => plan.pages.includes(p)).map((p) => measure(htmlOf(outDir, p)));
          expect(Math.max(...loaded), `${name} of ${variant}`).toBe(widest);
        }
      // Not vacuous: some variant has pages left out (pages of one variant differ in their data alone).
      expect(plan.pages.length).toBeLessThan(site.pages.length);
    });

    it("never scrolls sideways, disclosures open", () => {
      expect(everyPage((f) => (f.scrollWidth > f.innerWidth ? [`${f.scrollWidth} px`] : []))).toEqual([]);
      expect(everyPage((f) => (f.innerWidth === pass.viewport.width ? [] : [`viewport ${f.innerWidth} px`]))).toEqual(
        [],
      );
    });

    it(
      pass.axeRules === null
        ? "has no serious or critical axe violation on a page of every template"
        : `has no serious or critical axe violation of ${pass.axeRules.join(" or ")} on a page of every template`,
      () => {
        // Every page axe was meant to read is a built page, and every template has one.
        expect(AXE_PAGES().filter((p) => !site.pages.includes(p))).toEqual([]);
        expect(new Set([...plan.axe].map(templateOf))).toEqual(new Set(site.pages.map(templateOf)));
        if (pass === LAPTOP) expect(plan.axe).toEqual(new Set(site.axePages));
        const axed = (path: string) => plan.axe.has(path);
        expect(everyPage((f, path) => (axed(path) ? (f.axe ?? ["axe did not run"]) : []))).toEqual([]);
        // Not vacuous: axe measured text contrast on each of those pages.
        expect(everyPage((f, path) => (axed(path) && !f.contrastChecked ? ["no contrast measured"] : []))).toEqual([]);
      },
    );

    it("states its title, description and link-preview tags; a target's name its figures with their concurrency", () => {
      expect(
        everyPage((f) => [
          ...(f.title.length > 10 ? [] : [`title "${f.title}"`]),
          ...META.filter((s) => (f.meta[s] ?? "").length <= 5),
          // An inline icon, so the browser asks for no /favicon.ico (a 404, and a console error, on a static host).
          ...(f.icon?.startsWith("data:") ? [] : [`icon ${f.icon}`]),
        ]),
      ).toEqual([]);
      const three = facts.get(`targets/${THREE.id}/`);
      const title = three?.title ?? "";
      expect(title).toContain(`${THREE.label} (simulated): `);
      expect(title).toMatch(/[\d,]+ tok\/s alone, [\d,]+ tok\/s at \d+ users/);
      expect(three?.meta['meta[name="description"]']).toContain(title.split(" · ")[0]);
    });

    it("keeps every wide table in a named, keyboard-focusable scroll region", () => {
      expect(
        everyPage((f) => [
          ...f.scrollBoxes
            .filter((b) => b.tabindex !== "0" || b.role !== "region" || typeof b.label !== "string")
            .map((b) => `scroll region ${JSON.stringify(b)}`),
          ...(f.looseTables > 0 ? [`${f.looseTables} tables outside a scroll region`] : []),
        ]),
      ).toEqual([]);
      const regions = [...facts.values()].reduce((n, f) => n + f.scrollBoxes.length, 0);
      expect(regions).toBeGreaterThan(plan.pages.length);
    });

    it("draws every line of every chart as straight segments between measured points", () => {
      expect(everyPage((f) => f.linePaths.filter((d) => !/^M[-\d.,e]+(L[-\d.,e]+)*$/.test(d)))).toEqual([]);
      expect(everyPage((f) => f.linePaths).length).toBeGreaterThan(0);
    });
  });

  describe(`the rankings at ${pass.name} (issue 22)`, () => {
    const rankingPages = () => plan.pages.filter(isRankingPage);

    it("never shows a worse rank above a better one, model groups included", () => {
      expect(rankingPages().filter((p) => p.startsWith("at/")).length).toBeGreaterThan(0);
      for (const path of rankingPages()) {
        const tables = facts.get(path)?.rankings ?? [];
        expect(tables.length, path).toBeGreaterThan(0);
        for (const t of tables) {
          const ranks = t.ranks.map(rankValue);
          expect(ranks, `${path} #${t.id}: ${t.ranks.join(" ")}`).toEqual([...ranks].sort((a, b) => a - b));
        }
      }
    });

    if (pass === LAPTOP)
      it("shows every ranking column of /, /at/N/, /s/<scenario>/ (and its /at/N/) and the model pages inside a 1366 px viewport", () => {
        // Every ranking template is loaded, each by its widest pages (see the first test).
        expect(new Set(rankingPages().map(templateOf))).toEqual(
          new Set(site.pages.filter(isRankingPage).map(templateOf)),
        );
        const outside = rankingPages().flatMap((path) =>
          (facts.get(path)?.columnsOutside ?? ["not walked"]).map((f) => `${path || "/"}: ${f}`),
        );
        expect(outside).toEqual([]);
      });
  });
}
