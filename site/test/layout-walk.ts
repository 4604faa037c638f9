/**
 * @module The walk of the shared fixture site's pages in real headless Chromium that the layout tests
 * share: which pages a pass loads (`planWalk`), and what each showed (`walk`). A pass loads every
 * variant of every page (`variantOf`: its template, the load kinds it shows and the sections it has),
 * each by the pages of that variant whose data is the most extreme (`extremes`), and the pages axe
 * reads (`AXE_PAGES`); one read of its DOM per load feeds every per-page test, which then only judge the
 * facts. Stateless: with `isolate: false`, two test files in one worker share this module.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { CHAT_OPEN, OPEN_LOOP, RAG, SHARED_MODEL_KEY } from "./fixture.ts";
import { NO_VALID, THREE } from "./shared-site.ts";

/**
 * The pages axe reads: one of each template, and of each variant of a template that draws other
 * components (closed and open loop, a target with no valid run, a hostile label, compare pages with
 * nothing to draw). Any template missing here is added by its first page (see `planSite`).
 */
export const AXE_PAGES = () => [
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
export const VIEWPORTS = [
  { width: 390, height: 900 },
  { width: 1366, height: 900 },
] as const;

/** A catalogue's pages a reader lands on: `/`, a provider's and a gateway's filter, a model, compare, a level. */
export const CATALOGUE_PAGES = [
  "",
  "s/chat/by/provider/provider-3/",
  "s/chat/by/gateway/direct/",
  "models/model-5/",
  "compare/",
  "at/4/",
];

/**
 * The two passes over the pages, one per test file (`layout-phone.test.ts`, `layout-laptop.test.ts`),
 * so two workers share them: the layout checks at both widths and axe in both colour schemes. Axe runs
 * every rule in one pass and only the rules that read colours in the other: dark mode changes nothing
 * but the CSS colour variables (see `Base.astro`), so the other rules, which read the DOM, ARIA and
 * sizes, would find the same in both schemes, and axe is most of a pass's time.
 */
export const PHONE = {
  name: "390 px, dark",
  viewport: VIEWPORTS[0],
  colorScheme: "dark",
  axeRules: ["color-contrast", "link-in-text-block"],
} as const;
export const LAPTOP = { name: "1366 px, light", viewport: VIEWPORTS[1], colorScheme: "light", axeRules: null } as const;
export type Walk = typeof PHONE | typeof LAPTOP;
/** Tabs per pass: two keep a core busy while one tab waits on the server. */
const TABS_PER_WALK = 2;

/**
 * A page's template: its path with each id (the segment after `targets`, `s`, `models` or `at`) as an
 * asterisk, and a query as `?`: `targets/fast-small/s/rag/` and `targets/hostile/s/rag/` share one.
 */
export function templateOf(path: string): string {
  const [route = "", query] = path.split("?");
  const segments = route.split("/");
  const named = segments.map((s, i) =>
    i > 0 && ["targets", "s", "models", "at"].includes(segments[i - 1] as string) && s !== "" ? "*" : s,
  );
  return named.join("/") + (query === undefined ? "" : "?");
}

/** Folders holding an index.html, relative to dir. */
export function builtPages(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((p) => p === "index.html" || p.endsWith("/index.html"))
    .map((p) => p.slice(0, -"index.html".length))
    .sort();
}

/** The built HTML of a page (of its route, for a page with a query). */
export const htmlOf = (outDir: string, path: string) =>
  readFileSync(join(outDir, path.split("?")[0] as string, "index.html"), "utf8");

/**
 * A page's variant: its template, the load kinds it shows (`data-kind`) and the sections it has (its
 * element ids, numbers as `#`: `level-#`): pages of one variant have the same markup and differ in their
 * data alone. A kind, a template or a section added later is a variant of its own, walked at once.
 */
export function variantOf(path: string, html: string): string {
  const kinds = new Set(Array.from(html.matchAll(/ data-kind="([^"]+)"/g), (m) => m[1]));
  const ids = new Set(Array.from(html.matchAll(/ id="([^"]+)"/g), (m) => (m[1] as string).replace(/\d+/g, "#")));
  return `${templateOf(path)} kinds ${[...kinds].sort().join(",")} sections ${[...ids].sort().join(",")}`;
}

/** Text with its tags dropped and entities left as written (a measure of width, not a rendering). */
const textOf = (html: string) => html.replace(/<[^>]*>/g, " ");

/**
 * How extreme a page's data is, by three cheap measures of its HTML, each the widest of its variant's
 * pages wins a load: its size (most runs, levels and rows), its widest table row (most text across one
 * row: long names, most columns) and its longest word (a name that cannot wrap).
 */
export const EXTREMES: Record<string, (html: string) => number> = {
  size: (html) => html.length,
  "widest row": (html) =>
    Math.max(
      0,
      ...Array.from(html.matchAll(/<tr[\s>][\s\S]*?<\/tr>/g), (m) => textOf(m[0]).replace(/\s+/g, " ").trim().length),
    ),
  "longest word": (html) =>
    Math.max(
      0,
      ...textOf(html.slice(html.indexOf("<body")))
        .split(/\s+/)
        .map((w) => w.length),
    ),
};

/** The site's pages and what each pass loads. */
export interface SitePlan {
  /** Every page of the built site, as a path relative to its root ('' for the leaderboard), and two compare pages with a query. */
  pages: string[];
  /** Each page's variant. */
  variants: Map<string, string>;
  /** The pages of each variant that hold its most extreme data (see `EXTREMES`). */
  extremes: string[];
  /** The pages axe reads: `AXE_PAGES`, and the first page of any template they leave out. */
  axePages: string[];
}

/** Reads the built site's pages and picks the ones each pass loads. */
export function planSite(outDir: string): SitePlan {
  // Beside every built page, compare pages whose picked targets have nothing to draw (a sentence, no empty chart).
  const pages = [
    ...builtPages(outDir),
    "compare/?targets=nothing-picked",
    `s/${OPEN_LOOP.scenario}/compare/?targets=${CHAT_OPEN.id}`,
  ];
  const html = new Map(pages.map((p) => [p, htmlOf(outDir, p)]));
  const variants = new Map(pages.map((p) => [p, variantOf(p, html.get(p) as string)]));
  const extremes = new Set<string>();
  for (const variant of new Set(variants.values())) {
    const of = pages.filter((p) => variants.get(p) === variant);
    for (const measure of Object.values(EXTREMES)) {
      const score = (p: string) => measure(html.get(p) as string);
      extremes.add(of.reduce((best, p) => (score(p) > score(best) ? p : best)));
    }
  }
  const axePages = AXE_PAGES().filter((p) => pages.includes(p));
  for (const path of pages) if (!axePages.some((p) => templateOf(p) === templateOf(path))) axePages.push(path);
  return { pages, variants, extremes: pages.filter((p) => extremes.has(p)), axePages };
}

/**
 * What a pass loads and where axe reads. Both passes load the same pages: the extremes of every
 * variant, the axe pages and the three-run target (whose title a test reads); a page of a variant is
 * as wide as its data, so the widest of each stands for the others. Axe reads every axe page with
 * every rule in light mode; in dark mode, where only the colours change, the first axe page of each
 * template: colour contrast is most of axe's time.
 */
export function planWalk(site: SitePlan, pass: Walk): { pages: string[]; axe: Set<string> } {
  const wanted = new Set([...site.extremes, ...site.axePages, `targets/${THREE.id}/`]);
  const axe =
    pass.axeRules === null
      ? site.axePages
      : site.axePages.filter((p, i) => site.axePages.findIndex((q) => templateOf(q) === templateOf(p)) === i);
  return { pages: site.pages.filter((p) => wanted.has(p)), axe: new Set(axe) };
}

/** What one page showed in one pass: read in one round trip, then axe. */
export interface PageFacts {
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

export const META = [
  'meta[name="description"]',
  'meta[property="og:title"]',
  'meta[property="og:description"]',
  'meta[name="twitter:card"]',
  'meta[name="twitter:title"]',
  'meta[name="twitter:description"]',
];

async function readPage(page: Page, url: string, pass: Walk, withAxe: boolean): Promise<PageFacts> {
  // Charts are SVG drawn at build time and the only scripts are inline, but for the compare pages'
  // overlays, drawn in the browser after `load`: axe reads those once drawn (or replaced by a sentence).
  await page.goto(url, { waitUntil: "load" });
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
  if (!withAxe) return { ...dom, axe: null, contrastChecked: false };
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

/** Loads a pass's pages, a fixed pool of tabs each taking the next page, and returns each page's facts. */
export async function walk(
  browser: Browser,
  base: string,
  pass: Walk,
  plan: ReturnType<typeof planWalk>,
): Promise<Map<string, PageFacts>> {
  const context = await browser.newContext({ viewport: pass.viewport, colorScheme: pass.colorScheme });
  const found = new Map<string, PageFacts>();
  let next = 0;
  const tab = async () => {
    const page = await context.newPage();
    while (next < plan.pages.length) {
      const path = plan.pages[next++] as string;
      found.set(path, await readPage(page, new URL(path, base).href, pass, plan.axe.has(path)));
    }
  };
  await Promise.all(Array.from({ length: TABS_PER_WALK }, tab));
  await context.close();
  return found;
}

/** A ranking page: `/`, `/at/N/`, a scenario's (and its `/at/N/`), a model's; compare pages are not. */
export const isRankingPage = (p: string) =>
  (p === "" || p.startsWith("at/") || p.startsWith("models/") || p.startsWith("s/")) && !p.includes("compare/");
