/**
 * Layout, charts, accessibility and sharing metadata of every page the build writes, in real headless
 * Chromium: pages are found by walking the built site, so a page kind added later is covered too. Every
 * page is loaded at 390 px in dark mode, and a page of every template and every ranking at 1366 px in
 * light mode (a few tabs at a time; see `planWalk`); one read of its DOM per load feeds every per-page
 * test, which then only judge the facts. Axe, most of the time, runs on one page of each template and
 * each variant of it (see `AXE_PAGES`), not on every page: pages of one template differ in their data,
 * not in their markup.
 */
import { readdirSync } from "node:fs";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fmt } from "../src/lib/format.ts";
import { type StaticServer, serveStatic } from "../src/serve.ts";
import { launchChromium } from "./browser.ts";
import { CHAT_OPEN, CONVERSATION, OPEN_LOOP, RAG, SEARCHED, SHARED_MODEL_KEY, TRACE } from "./fixture.ts";
import { NO_VALID, sharedSite, THREE } from "./shared-site.ts";

/**
 * The pages axe reads: one of each template, and of each variant of a template that draws other
 * components (closed and open loop, a target with no valid run, a hostile label, compare pages with
 * nothing to draw). Any template missing here is added by its first page (see `axePages`).
 */
const AXE_PAGES = () => [
  "",
  "at/1/",
  "alerts/",
  "data/",
  "methodology/",
  "compare/",
  "compare/?targets=nothing-picked",
  `s/${RAG.scenario}/`,
  `s/${RAG.scenario}/at/1/`,
  `s/${RAG.scenario}/compare/`,
  `s/${OPEN_LOOP.scenario}/`,
  `s/${OPEN_LOOP.scenario}/compare/`,
  `s/${OPEN_LOOP.scenario}/compare/?targets=${CHAT_OPEN.id}`,
  "targets/fast-small/",
  `targets/fast-small/s/${RAG.scenario}/`,
  `targets/${THREE.id}/`,
  `targets/${NO_VALID.id}/`,
  "targets/hostile/",
  `targets/${OPEN_LOOP.id}/`,
  `targets/${CHAT_OPEN.id}/`,
  `models/${SHARED_MODEL_KEY}/`,
  `models/${OPEN_LOOP.id}/`,
];

/** A phone and a laptop. */
const VIEWPORTS = [
  { width: 390, height: 900 },
  { width: 1366, height: 900 },
];
const SCHEMES = ["light", "dark"] as const;
let browser: Browser;
let server: StaticServer;
let base: string;
/** Every page of the built site, as a path relative to its root ('' for the leaderboard). */
let pages: string[];
/** The pages axe reads: `AXE_PAGES`, and the first page of any template they leave out. */
let axePages: string[];

/**
 * A page's template: its path with each id (the segment after `targets`, `s`, `models` or `at`) as an
 * asterisk, and a query as `?`: `targets/fast-small/s/rag/` and `targets/hostile/s/rag/` share one.
 */
function templateOf(path: string): string {
  const [route = "", query] = path.split("?");
  const segments = route.split("/");
  const named = segments.map((s, i) =>
    i > 0 && ["targets", "s", "models", "at"].includes(segments[i - 1] as string) && s !== "" ? "*" : s,
  );
  return named.join("/") + (query === undefined ? "" : "?");
}

/** Folders holding an index.html, relative to dir. */
function builtPages(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((p) => p === "index.html" || p.endsWith("/index.html"))
    .map((p) => p.slice(0, -"index.html".length))
    .sort();
}

async function visit(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(new URL(path, base).href, { waitUntil: "load" });
  return page;
}

/**
 * The two passes over the pages: the layout checks at both widths and axe in both colour schemes. Axe
 * runs every rule in one pass and only the rules that read colours in the other: dark mode changes
 * nothing but the CSS colour variables (see `Base.astro`), so the other rules, which read the DOM, ARIA
 * and sizes, would find the same in both schemes, and axe is most of this test's time.
 */
const WALKS = [
  {
    name: "390 px, dark",
    viewport: VIEWPORTS[0],
    colorScheme: "dark",
    axeRules: ["color-contrast", "link-in-text-block"],
  },
  { name: "1366 px, light", viewport: VIEWPORTS[1], colorScheme: "light", axeRules: null },
] as const;
type Walk = (typeof WALKS)[number];
/** Tabs per pass: two passes of two keep a two-core machine busy while one tab waits on the server. */
const TABS_PER_WALK = 2;

/** What one page showed in one pass: read in one round trip, then axe. */
interface PageFacts {
  /** The document's width once every disclosure is open, and the viewport's (px). */
  scrollWidth: number;
  innerWidth: number;
  title: string;
  /** Each sharing meta tag's content by its selector ("" when missing). */
  meta: Record<string, string>;
  icon: string | null;
  scrollBoxes: { tabindex: string | null; role: string | null; label: string | null }[];
  /** Tables in main outside a `.table-scroll` region. */
  looseTables: number;
  /** The `d` of every line mark of every chart. */
  linePaths: string[];
  /** Each sortable table's ranks, top to bottom, as shown. */
  rankings: { id: string; ranks: string[] }[];
  /** Sortable tables that scroll, and headers that end past the viewport (measured with disclosures closed). */
  columnsOutside: string[];
  /** Serious or critical axe violations, as "rule selector, selector"; null where axe did not read the page. */
  axe: string[] | null;
  /** Whether axe measured text contrast (not vacuous). */
  contrastChecked: boolean;
}

const META = [
  'meta[name="description"]',
  'meta[property="og:title"]',
  'meta[property="og:description"]',
  'meta[name="twitter:card"]',
  'meta[name="twitter:title"]',
  'meta[name="twitter:description"]',
];

/** Every page's facts in each pass, by pass name and then path. */
const facts = new Map<string, Map<string, PageFacts>>();

async function readPage(page: Page, path: string, pass: Walk): Promise<PageFacts> {
  // Charts are SVG drawn at build time and the only scripts are inline, but for the compare pages'
  // overlays, drawn in the browser after `load`: axe reads those once drawn (or replaced by a sentence).
  await page.goto(new URL(path, base).href, { waitUntil: "load" });
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll(".chart-svg")).every((c) => c.childNodes.length > 0),
  );
  const dom = await page.evaluate((meta) => {
    const columnsOutside: string[] = [];
    for (const table of Array.from(document.querySelectorAll("table[data-sortable]"))) {
      const box = table.closest(".table-scroll") as HTMLElement;
      if (box.scrollWidth > box.clientWidth)
        columnsOutside.push(`#${table.id} scrolls ${box.scrollWidth - box.clientWidth} px`);
      for (const th of Array.from(table.querySelectorAll("thead th"))) {
        const right = th.getBoundingClientRect().right;
        if (right > window.innerWidth)
          columnsOutside.push(`#${table.id} "${th.textContent}" ends at ${Math.round(right)} px`);
      }
    }
    // Open every disclosure: what it hides must fit too (and axe then reads it).
    for (const d of Array.from(document.querySelectorAll("details"))) d.open = true;
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      title: document.title,
      meta: Object.fromEntries(meta.map((s) => [s, document.querySelector(s)?.getAttribute("content") ?? ""])),
      icon: document.querySelector('link[rel="icon"]')?.getAttribute("href") ?? null,
      scrollBoxes: Array.from(document.querySelectorAll(".table-scroll"), (b) => ({
        tabindex: b.getAttribute("tabindex"),
        role: b.getAttribute("role"),
        label: b.ariaLabel,
      })),
      looseTables: Array.from(document.querySelectorAll("main table")).filter((t) => !t.closest(".table-scroll"))
        .length,
      linePaths: Array.from(
        document.querySelectorAll(".chart svg path[aria-roledescription='line mark']"),
        (p) => p.getAttribute("d") ?? "",
      ),
      rankings: Array.from(document.querySelectorAll("table[data-sortable]"), (t) => ({
        id: t.id,
        ranks: Array.from(t.querySelectorAll("tbody tr[data-target] td.rank"), (td) => td.textContent?.trim() ?? ""),
      })),
      columnsOutside,
    };
  }, META);
  if (!planOf(pass).axe.has(path)) return { ...dom, axe: null, contrastChecked: false };
  // The charts' insides are read too: an empty mark group is an unnamed image to a screen reader
  // (`svg-img-alt`), which leaving them out once hid. Only violations come back with their nodes:
  // passes are named, which is all the contrast check needs. Legacy mode runs axe in the page itself:
  // the default opens a second page per run to merge frames' results, and this site has no frames;
  // it took axe from 2-3 s a page to 1.
  const builder = new AxeBuilder({ page }).setLegacyMode(true).options({ resultTypes: ["violations"] });
  const result = await (pass.axeRules ? builder.withRules([...pass.axeRules]) : builder).analyze();
  const axe = result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  return { ...dom, axe, contrastChecked: result.passes.some((p) => p.id === "color-contrast") };
}

/** A ranking page: `/`, `/at/N/`, a scenario's (and its `/at/N/`), a model's; compare pages are not. */
const isRankingPage = (p: string) =>
  (p === "" || p.startsWith("at/") || p.startsWith("models/") || p.startsWith("s/")) && !p.includes("compare/");

/**
 * What each pass loads and where axe reads. The phone loads every page: a long name or a wide figure
 * is data, and any page can hold one. The laptop loads the axe pages, the rankings (whose columns must
 * all fit at 1366 px, and are as wide as their data) and the three-run target; its other pages share a
 * template with one it loads, and a page too wide for 1366 px is too wide for 390 px too. Axe reads
 * every axe page with every rule in light mode; in dark mode, where only the colours change, the first
 * axe page of each template: colour contrast is most of axe's time.
 */
function planWalk(pass: Walk): { pages: string[]; axe: Set<string> } {
  const loaded =
    pass === WALKS[0]
      ? pages
      : pages.filter((p) => axePages.includes(p) || isRankingPage(p) || p === `targets/${THREE.id}/`);
  const axe =
    pass.axeRules === null
      ? axePages
      : axePages.filter((p, i) => axePages.findIndex((q) => templateOf(q) === templateOf(p)) === i);
  return { pages: loaded, axe: new Set(axe) };
}
let plans: Map<string, ReturnType<typeof planWalk>>;
const planOf = (pass: Walk) => plans.get(pass.name) as ReturnType<typeof planWalk>;

/** Loads a pass's pages, a fixed pool of tabs each taking the next page. */
async function walk(pass: Walk): Promise<Map<string, PageFacts>> {
  const context = await browser.newContext({ viewport: pass.viewport, colorScheme: pass.colorScheme });
  const found = new Map<string, PageFacts>();
  const { pages: loaded } = planOf(pass);
  let next = 0;
  const tab = async () => {
    const page = await context.newPage();
    while (next < loaded.length) {
      const path = loaded[next++] as string;
      found.set(path, await readPage(page, path, pass));
    }
  };
  await Promise.all(Array.from({ length: TABS_PER_WALK }, tab));
  await context.close();
  return found;
}

/** Each pass's findings of one kind on the pages it loads, "page at pass: finding", in page order. */
function everyPage(finding: (f: PageFacts, path: string, pass: Walk) => string[]): string[] {
  return WALKS.flatMap((pass) =>
    planOf(pass).pages.flatMap((path) => {
      const f = facts.get(pass.name)?.get(path);
      if (!f) return [`${path || "/"} at ${pass.name}: not walked`];
      return finding(f, path, pass).map((x) => `${path || "/"} at ${pass.name}: ${x}`);
    }),
  );
}

beforeAll(async () => {
  // The fixture site the site tests share (see shared-site.ts), built once a run.
  const { outDir } = await sharedSite(inject("sharedSiteDir"));
  // Beside every built page, compare pages whose picked targets have nothing to draw (a sentence, no empty chart).
  pages = [
    ...builtPages(outDir),
    "compare/?targets=nothing-picked",
    `s/${OPEN_LOOP.scenario}/compare/?targets=${CHAT_OPEN.id}`,
  ];
  axePages = AXE_PAGES().filter((p) => pages.includes(p));
  for (const path of pages) if (!axePages.some((p) => templateOf(p) === templateOf(path))) axePages.push(path);
  plans = new Map(WALKS.map((pass) => [pass.name, planWalk(pass)]));
  server = await serveStatic(outDir);
  base = server.url;
  browser = await launchChromium();
  // Every page's walk, once, for every test below that reads `facts` (so a filtered run still has them).
  await Promise.all(WALKS.map(async (pass) => facts.set(pass.name, await walk(pass))));
  // Long: on a shared two-core machine under load, axe alone takes tens of seconds a page.
}, 1_800_000);

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

  it("never scrolls sideways at 390 px, nor at 1366 px on a page of every template and every ranking, disclosures open", () => {
    expect(planOf(WALKS[0]).pages).toEqual(pages);
    expect(new Set(planOf(WALKS[1]).pages.map(templateOf))).toEqual(new Set(pages.map(templateOf)));
    expect(everyPage((f) => (f.scrollWidth > f.innerWidth ? [`${f.scrollWidth} px`] : []))).toEqual([]);
  });

  it("has no serious or critical axe violation in light mode at 1366 px, nor in colour in dark mode at 390 px, on a page of every template", () => {
    // Every page axe was meant to read is a built page, and every template has one in each scheme.
    expect(AXE_PAGES().filter((p) => !pages.includes(p))).toEqual([]);
    for (const pass of WALKS)
      expect(new Set([...planOf(pass).axe].map(templateOf)), pass.name).toEqual(new Set(pages.map(templateOf)));
    expect(planOf(WALKS[1]).axe).toEqual(new Set(axePages));
    const axed = (path: string, pass: Walk) => planOf(pass).axe.has(path);
    expect(everyPage((f, path, pass) => (axed(path, pass) ? (f.axe ?? ["axe did not run"]) : []))).toEqual([]);
    // Not vacuous: axe measured text contrast on each of those pages in both schemes.
    expect(
      everyPage((f, path, pass) => (axed(path, pass) && !f.contrastChecked ? ["no contrast measured"] : [])),
    ).toEqual([]);
  });

  it("states its title, description and link-preview tags; a target's name its figures with their concurrency", async () => {
    expect(
      everyPage((f) => [
        ...(f.title.length > 10 ? [] : [`title "${f.title}"`]),
        ...META.filter((s) => (f.meta[s] ?? "").length <= 5),
        // An inline icon, so the browser asks for no /favicon.ico (a 404, and a console error, on a static host).
        ...(f.icon?.startsWith("data:") ? [] : [`icon ${f.icon}`]),
      ]),
    ).toEqual([]);
    const three = facts.get(WALKS[1].name)?.get(`targets/${THREE.id}/`);
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
    const regions = [...(facts.get(WALKS[0].name)?.values() ?? [])].reduce((n, f) => n + f.scrollBoxes.length, 0);
    expect(regions).toBeGreaterThan(pages.length);
  });

  it("draws every line of every chart as straight segments between measured points", () => {
    expect(everyPage((f) => f.linePaths.filter((d) => !/^M[-\d.,e]+(L[-\d.,e]+)*$/.test(d)))).toEqual([]);
    expect(everyPage((f) => f.linePaths).length).toBeGreaterThan(0);
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

/** The rank a cell shows as a number: `=2` is 2, `—` (unranked) sorts after every rank. */
const rankValue = (label: string) => (label === "—" ? Number.POSITIVE_INFINITY : Number(label.replace("=", "")));

describe("the rankings read at a glance (issue 22)", () => {
  const rankingPages = () => pages.filter(isRankingPage);

  it("shows every ranking column of /, /at/N/, /s/<scenario>/ (and its /at/N/) and the model pages inside a 1366 px viewport; a phone never scrolls sideways", async () => {
    expect(rankingPages().filter((p) => p.startsWith("at/")).length).toBeGreaterThan(2);
    expect(rankingPages()).toContain(`s/${RAG.scenario}/`);
    expect(rankingPages()).toContain(`s/${OPEN_LOOP.scenario}/`);
    // The phone's sideways scroll is checked on every page above; here the laptop's columns.
    const laptop = facts.get(WALKS[1].name);
    const outside = rankingPages().flatMap((path) =>
      (laptop?.get(path)?.columnsOutside ?? ["not walked"]).map((f) => `${path || "/"} at 1366: ${f}`),
    );
    expect(outside).toEqual([]);
  });

  it("never shows a worse rank above a better one, model groups included", async () => {
    for (const pass of WALKS) {
      for (const path of rankingPages()) {
        const tables = facts.get(pass.name)?.get(path)?.rankings ?? [];
        expect(tables.length, `${path} at ${pass.name}`).toBeGreaterThan(0);
        for (const t of tables) {
          const ranks = t.ranks.map(rankValue);
          expect(ranks, `${path} #${t.id}: ${t.ranks.join(" ")}`).toEqual([...ranks].sort((a, b) => a - b));
        }
      }
    }
    // Not vacuous: the fixture's shared model has two routes, under one header naming the model's key.
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
    expect(row[2]).toBe("2.00");
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
    expect(await page.textContent("#capacity-rate")).toBe("2 req/s");
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
