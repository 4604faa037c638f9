/**
 * Pages of the shared fixture site in real headless Chromium, each test driving its own pages (the target
 * page, the leaderboard, the rankings, the scenarios), and what every built page states in its HTML.
 * The walks of every variant of every page at 390 px and at 1366 px, with axe, are `layout-phone.test.ts`
 * and `layout-laptop.test.ts` (see `layout-walk.ts`).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fmt } from "../src/lib/format.ts";
import { type StaticServer, serveStatic } from "../src/serve.ts";
import { launchChromium } from "./browser.ts";
import { CHAT_OPEN, CONVERSATION, OPEN_LOOP, RAG, SEARCHED, TRACE } from "./fixture.ts";
import { rankValue } from "./layout-pass.ts";
import { builtPages, htmlOf, isRankingPage, META, VIEWPORTS } from "./layout-walk.ts";
import { NO_VALID, sharedSite, THREE } from "./shared-site.ts";

const SCHEMES = ["light", "dark"] as const;
let browser: Browser;
let server: StaticServer;
let base: string;
let outDir: string;
/** Every page of the built site, as a path relative to its root ('' for the leaderboard). */
let pages: string[];

async function visit(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(new URL(path, base).href, { waitUntil: "load" });
  return page;
}

/** An HTML tag's attributes by name (values as written, entities and all). */
const attributes = (tag: string) =>
  Object.fromEntries(Array.from(tag.matchAll(/([\w:-]+)="([^"]*)"/g), (m) => [m[1] as string, m[2] as string]));

/** Each tag named `name` in `html`, as its attributes (a value may hold a `>`: a hostile label's does). */
const tags = (html: string, name: string) =>
  Array.from(html.matchAll(new RegExp(`<${name}((?:\\s+[\\w:-]+(?:="[^"]*")?)*)\\s*/?>`, "g")), (m) =>
    attributes(m[1] as string),
  );

/** Each sortable table's ranks, top to bottom, as built (the order a page shows until a header is clicked). */
function builtRankings(html: string): { id: string; ranks: string[] }[] {
  return Array.from(html.matchAll(/<table\s[^>]*data-sortable[\s\S]*?<\/table>/g), (m) => ({
    id: attributes(m[0].slice(0, m[0].indexOf(">"))).id ?? "",
    ranks: Array.from(m[0].matchAll(/<tr data-target[^>]*>\s*<td class="rank"[^>]*>([^<]*)<\/td>/g), (r) =>
      (r[1] as string).trim(),
    ),
  }));
}

beforeAll(async () => {
  // The fixture site the site tests share (see shared-site.ts), built once a run.
  ({ outDir } = await sharedSite(inject("sharedSiteDir")));
  pages = builtPages(outDir);
  server = await serveStatic(outDir);
  base = server.url;
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("every built page", () => {
  it("is found by walking the build: each page kind of today is there", () => {
    for (const kind of [
      "",
      "compare/",
      "alerts/",
      "data/",
      "methodology/",
      `targets/${THREE.id}/`,
      `s/${RAG.scenario}/`,
      `s/${RAG.scenario}/at/1/`,
      `s/${OPEN_LOOP.scenario}/`,
      `targets/fast-small/s/${RAG.scenario}/`,
      `targets/${OPEN_LOOP.id}/`,
      `targets/${CHAT_OPEN.id}/`,
      "at/1/",
    ]) {
      expect(pages).toContain(kind);
    }
  });

  it("states its title, description and link-preview tags, and an inline icon, as built", () => {
    // The walks read these in the browser on the pages they load; here every page, from its HTML.
    const missing = pages.flatMap((path) => {
      const html = htmlOf(outDir, path);
      const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? "";
      const meta = tags(html, "meta");
      const content = (selector: string) => {
        const [, attribute, value] = /\[(\w+)="([^"]+)"\]/.exec(selector) as RegExpExecArray;
        return meta.find((m) => m[attribute as string] === value)?.content ?? "";
      };
      const icon = tags(html, "link").find((l) => l.rel === "icon")?.href ?? null;
      return [
        ...(title.length > 10 ? [] : [`title "${title}"`]),
        ...META.filter((s) => content(s).length <= 5),
        ...(icon?.startsWith("data:") ? [] : [`icon ${icon}`]),
      ].map((x) => `${path || "/"}: ${x}`);
    });
    expect(missing).toEqual([]);
    expect(pages.length).toBeGreaterThan(50);
  });

  it("draws every line of every chart as straight segments between measured points, as built", () => {
    const lines = pages.flatMap((path) =>
      tags(htmlOf(outDir, path), "path")
        .filter((p) => p["aria-roledescription"] === "line mark")
        .map((p) => ({ path, d: p.d ?? "" })),
    );
    expect(lines.filter(({ d }) => !/^M[-\d.,e]+(L[-\d.,e]+)*$/.test(d))).toEqual([]);
    expect(new Set(lines.map((l) => l.path)).size).toBeGreaterThan(10);
  });
});

describe("the target page", () => {
  it("draws three points per panel for three runs, on a y axis from zero, with dates on the time axis", async () => {
    const context = await browser.newContext();
    const page = await visit(context, `targets/${THREE.id}/`);
    const panels = await page.$$eval("#history svg g.concat_0_group, #history svg g.concat_1_group", (groups) =>
      groups.map((g) => ({
        points: g.querySelectorAll(".mark-symbol.role-mark path").length,
        lines: Array.from(g.querySelectorAll("path[aria-roledescription='line mark']")).map((p) => p.getAttribute("d")),
        labels: Array.from(g.querySelectorAll(".role-axis-label text")).map((t) => t.textContent ?? ""),
      })),
    );
    expect(panels).toHaveLength(2);
    for (const panel of panels) {
      expect(panel.points).toBe(3);
      expect(panel.lines).toHaveLength(1);
      expect((panel.lines[0] ?? "").split("L")).toHaveLength(3);
      expect(panel.labels).toContain("0");
      expect(panel.labels.some((l) => l.startsWith(THREE.day))).toBe(true);
    }
    // The chart names itself and describes what it shows.
    expect(await page.getAttribute("#history svg", "role")).toBe("img");
    expect(await page.textContent("#history svg desc")).toContain("one point per run");
    await context.close();
  });

  it("shows the per-level tables whole on a 1366 px laptop, one number per cell, tails in a disclosure", async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS[1] });
    const page = await visit(context, "targets/fast-small/");
    for (const id of ["levels", "levels-outcomes", "levels-client"]) {
      const fits = await page.$eval(`#${id}`, (t) => t.scrollWidth <= (t.parentElement as HTMLElement).clientWidth);
      expect(fits, id).toBe(true);
    }
    const cells = await page.$$eval("[id^=levels] tbody td:not(.text)", (tds) => tds.map((td) => td.textContent ?? ""));
    expect(cells.length).toBeGreaterThan(20);
    for (const c of cells) expect(c).toMatch(/^(—|-?[\d,]+(\.\d+)?)$/);
    expect(await page.$eval("#levels-tail", (t) => t.closest("details") !== null)).toBe(true);
    await context.close();
  });

  it("follows dark mode, charts included", async () => {
    const colors: Record<string, { background: string; axisText: string; text: string }> = {};
    for (const colorScheme of SCHEMES) {
      const context = await browser.newContext({ colorScheme });
      const page = await visit(context, `targets/${THREE.id}/`);
      colors[colorScheme] = await page.evaluate(() => ({
        background: getComputedStyle(document.body).backgroundColor,
        text: getComputedStyle(document.body).color,
        axisText: getComputedStyle(document.querySelector("#curves svg .role-axis-label text") as Element).fill,
      }));
      await context.close();
    }
    expect(colors.light?.background).not.toBe(colors.dark?.background);
    for (const scheme of SCHEMES) expect(colors[scheme]?.axisText).toBe(colors[scheme]?.text);
  });
});

describe("the leaderboard", () => {
  it("sorts by header buttons, and aria-sort on the header says which column orders the rows", async () => {
    const context = await browser.newContext();
    const page = await visit(context, "");
    const heads = () =>
      page.$$eval("#leaderboard thead th", (ths) =>
        ths.map((th) => ({
          button: th.querySelector(":scope > button") !== null,
          sort: th.getAttribute("aria-sort"),
          text: th.textContent ?? "",
        })),
      );
    const before = await heads();
    expect(before.filter((h) => h.button).length).toBeGreaterThan(5);
    expect(before.filter((h) => h.sort !== null)).toEqual([
      { button: true, sort: "descending", text: expect.stringContaining("peak aggregate") },
    ]);
    await page.click('#leaderboard th:has-text("single-stream") button');
    const after = await heads();
    expect(after.filter((h) => h.sort !== null)).toEqual([
      { button: true, sort: "descending", text: expect.stringContaining("single-stream") },
    ]);
    // The single-stream column, found by its header (the columns before it may change).
    const col = after.findIndex((h) => h.text.includes("single-stream")) + 1;
    // The cell's first line is the median (its interval is a second line).
    const first = await page.$eval(
      `#leaderboard tbody tr td:nth-child(${col})`,
      (td) => td.firstChild?.textContent ?? "",
    );
    const all = await page.$$eval(`#leaderboard tbody tr td:nth-child(${col})`, (tds) =>
      tds.map((td) => Number((td as HTMLElement).dataset.v || "-1")),
    );
    expect(first).toBe(fmt(Math.max(...all), 1));
    await context.close();
  });
});

describe("the rankings read at a glance (issue 22)", () => {
  const rankingPages = () => pages.filter(isRankingPage);

  it("has ranking pages at each N, and a scenario's of each kind (walked at both widths by `layout-laptop` and `layout-phone`)", () => {
    expect(rankingPages().filter((p) => p.startsWith("at/")).length).toBeGreaterThan(2);
    expect(rankingPages()).toContain(`s/${RAG.scenario}/`);
    expect(rankingPages()).toContain(`s/${OPEN_LOOP.scenario}/`);
  });

  it("never builds a worse rank above a better one on any ranking page, model groups included", async () => {
    // Every ranking page as built (the walks read the variants' widest pages in the browser, after the
    // scripts: sorting waits for a click, so the order shown at load is the order built).
    for (const path of rankingPages()) {
      const tables = builtRankings(htmlOf(outDir, path));
      expect(tables.length, path).toBeGreaterThan(0);
      for (const t of tables) {
        const ranks = t.ranks.map(rankValue);
        expect(ranks, `${path} #${t.id}: ${t.ranks.join(" ")}`).toEqual([...ranks].sort((a, b) => a - b));
      }
    }
    // Not vacuous: ties and unranked rows are read.
    const labels = rankingPages().flatMap((p) => builtRankings(htmlOf(outDir, p)).flatMap((t) => t.ranks));
    expect(labels.some((l) => l.startsWith("="))).toBe(true);
    expect(labels.length).toBeGreaterThan(2 * rankingPages().length);
    // The fixture's shared model has two routes, under one header naming the model's key.
    const context = await browser.newContext();
    const board = await visit(context, "");
    const header = await board.$$eval("#leaderboard tr.group th", (ths) => ths.map((th) => th.textContent ?? ""));
    expect(header.some((h) => h.includes("model shared-model-8b"))).toBe(true);
    // Each model's rows are a row group of their own: a one-route model is not read as part of the group above.
    const groups = await board.$$eval("#leaderboard tbody", (bodies) =>
      bodies.map(
        (b) => new Set(Array.from(b.querySelectorAll("tr[data-target]"), (r) => (r as HTMLElement).dataset.model)).size,
      ),
    );
    expect(groups.length).toBeGreaterThan(2);
    expect(groups.every((n) => n === 1)).toBe(true);
    await context.close();
  });

  it("says in a sentence, and draws no chart, where a target has no valid run", async () => {
    for (const viewport of VIEWPORTS) {
      const context = await browser.newContext({ viewport });
      const page = await visit(context, `targets/${NO_VALID.id}/`);
      expect(await page.$$("svg"), `at ${viewport.width}`).toHaveLength(0);
      const sentences = await page.$$eval(".chart-empty", (ps) => ps.map((p) => p.textContent ?? ""));
      expect(sentences.length).toBeGreaterThanOrEqual(3);
      for (const s of sentences) expect(s).toMatch(/^Nothing to draw: /);
      expect(await page.textContent("#standing-runs")).toContain("No valid run yet");
      // A missing figure is a bare dash, with no unit or concurrency around it, and no knee is "not reached".
      const figures = await page.$$eval(".figures dd", (dds) => dds.map((dd) => (dd.textContent ?? "").trim()));
      expect(figures.slice(0, 8)).toEqual(Array(8).fill("—"));
      // The title says "(simulated)" once: the label already does.
      expect(await page.title()).toBe(`${NO_VALID.label}: no figures yet · kneeboard`);
      await page.close();
      await context.close();
    }
  });

  it("puts the leaderboard's first row on the first screen, with no blank band above the table", async () => {
    for (const viewport of VIEWPORTS) {
      const context = await browser.newContext({ viewport });
      const page = await visit(context, "");
      const { row, nav, table, head } = await page.evaluate(() => {
        const box = (s: string) => (document.querySelector(s) as Element).getBoundingClientRect();
        const cell = box("#leaderboard thead th:first-child");
        return {
          row: box("#leaderboard tbody tr"),
          nav: box("nav.levels"),
          table: box("#leaderboard"),
          head: { top: box("#leaderboard thead").top, cellTop: cell.top },
        };
      });
      expect(row.top, `at ${viewport.width}`).toBeGreaterThanOrEqual(0);
      expect(row.bottom, `at ${viewport.width}`).toBeLessThanOrEqual(viewport.height);
      // The table starts right under the level links, and its header is no taller than its words need.
      expect(table.top - nav.bottom, `at ${viewport.width}`).toBeLessThan(40);
      expect(row.top - head.top, `at ${viewport.width}`).toBeLessThan(130);
      await page.close();
      await context.close();
    }
  });
});

describe("scenarios", () => {
  it("ranks each scenario on its own page, and / links the others without a script", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const board = await visit(context, "");
    const links = await board.$$eval("nav.scenarios a", (as) => as.map((a) => a.getAttribute("href")));
    expect(links).toEqual([
      `s/${RAG.scenario}/`,
      `s/${OPEN_LOOP.scenario}/`,
      `s/${CONVERSATION.scenario}/`,
      `s/${TRACE.scenario}/`,
      `s/${SEARCHED.scenario}/`,
    ]);
    expect(await board.textContent("nav.scenarios [aria-current=page]")).toBe("chat");
    await board.click(`nav.scenarios a[href="s/${RAG.scenario}/"]`);
    await board.waitForURL(`**/s/${RAG.scenario}/`);
    const rag = await board.$$eval("#leaderboard tbody tr[data-target]", (rows) =>
      rows.map((r) => (r as HTMLElement).dataset.target),
    );
    expect(rag.sort()).toEqual([...RAG.targets].sort());
    expect(await board.textContent("h1")).toContain(`(${RAG.scenario})`);
    // Its rows lead to each target's rag page.
    const hrefs = await board.$$eval("#leaderboard tbody tr[data-target] td.name > a", (as) =>
      as.map((a) => a.getAttribute("href")),
    );
    expect(hrefs).toContain(`../../targets/fast-small/s/${RAG.scenario}/`);
    await context.close();
  });

  it("ranks an open-loop scenario by capacity in requests/s, with no concurrency column", async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS[1] });
    const page = await visit(context, `s/${OPEN_LOOP.scenario}/`);
    const heads = await page.$$eval("#rate-leaderboard thead th", (ths) => ths.map((th) => th.textContent ?? ""));
    expect(heads.find((h) => h.includes("capacity"))).toContain("req/s");
    expect(heads.some((h) => h.includes("achieved req/s"))).toBe(true);
    expect(heads.join(" ")).not.toMatch(/\bN\b|concurrency/);
    const row = await page.$eval(`#rate-leaderboard tr[data-target="${OPEN_LOOP.id}"]`, (tr) =>
      Array.from(tr.querySelectorAll("td"), (td) => (td.textContent ?? "").trim()),
    );
    // The capacity, then the latest run's bracket under it: met at 2 req/s, missed at 4.
    expect(row[2]).toBe("2.00[2, 4), ladder");
    expect(
      await page.$eval(`#rate-leaderboard tr[data-target="${OPEN_LOOP.id}"] td:nth-child(3)`, (td) => [
        (td as HTMLElement).dataset.v,
        td.querySelector(".bracket")?.textContent,
      ]),
    ).toEqual(["2", "[2, 4), ladder"]);
    await context.close();
  });

  it("draws an open-loop target's levels against the offered rate, with no concurrency axis", async () => {
    const context = await browser.newContext();
    const page = await visit(context, `targets/${OPEN_LOOP.id}/`);
    const titles = await page.$$eval(".chart svg .role-axis-title text", (ts) => ts.map((t) => t.textContent ?? ""));
    expect(titles.filter((t) => t === "offered rate (requests/s)").length).toBeGreaterThanOrEqual(3);
    expect(titles.filter((t) => /concurrency/i.test(t))).toEqual([]);
    expect(await page.$$("#curves, #tradeoff, #latency, #standing-curves")).toHaveLength(0);
    const rates = await page.$$eval("#rate-numbers tbody tr td:first-child", (tds) => tds.map((td) => td.textContent));
    expect(rates).toEqual(["0.50", "1.00", "2.00", "4.00"]);
    // The last run's capacity with its bracket beside it, as the leaderboard's.
    expect(await page.textContent("#capacity-rate")).toBe("2 req/s [2, 4), ladder");
    await context.close();
  });

  it("draws the prefill curve on the page of a target with two closed-loop scenarios", async () => {
    const context = await browser.newContext();
    const page = await visit(context, "targets/fast-small/");
    const titles = await page.$$eval("#prefill svg .role-axis-title text", (ts) => ts.map((t) => t.textContent ?? ""));
    expect(titles).toContain("prompt tokens");
    expect(
      await page.$$("#prefill svg .mark-symbol path, #prefill svg path[aria-roledescription='line mark']"),
    ).not.toHaveLength(0);
    const prompts = await page.$$eval("#prefill-numbers tbody tr td:nth-child(2)", (tds) =>
      tds.map((td) => td.textContent),
    );
    expect(prompts).toEqual(["150", "4,000"]);
    // The target links its rag page, which draws its own curves.
    expect(await page.getAttribute("nav.scenarios a", "href")).toBe(`../../targets/fast-small/s/${RAG.scenario}/`);
    const rag = await visit(context, `targets/fast-small/s/${RAG.scenario}/`);
    expect(await rag.$$("#curves svg")).toHaveLength(1);
    expect(await rag.$$("#prefill")).toHaveLength(0);
    // A target with one closed-loop scenario draws none.
    expect(await (await visit(context, "targets/hostile/")).$$("#prefill")).toHaveLength(0);
    await context.close();
  });
});
