/** The compare pages per scenario and the alerts page across scenarios, read from the built HTML (no browser). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { RATE_TITLE } from "../src/lib/charts/index.ts";
import { fmt } from "../src/lib/format.ts";
import { OPEN_LOOP, RAG } from "./fixture.ts";
import { publishedIndex } from "./published.ts";
import { STOPPED, sharedSite } from "./shared-site.ts";

let outDir: string;

const html = (path: string) => readFileSync(join(outDir, path, "index.html"), "utf8");
/** The element `<tag ... id="id">...</tag>` (no nesting of the same tag inside). */
function element(page: string, tag: string, id: string): string {
  const start = page.search(new RegExp(`<${tag}\\b[^>]*\\bid="${id}"`));
  if (start < 0) throw new Error(`no <${tag} id="${id}">`);
  return page.slice(start, page.indexOf(`</${tag}>`, start) + tag.length + 3);
}
/** The text of each `<tr data-target>` of a table, by target id. */
function rows(table: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of table.matchAll(/<tr data-target="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g))
    out.set(m[1] as string, (m[2] as string).replace(/<[^>]+>/g, " ").replace(/\s+/g, " "));
  return out;
}
const hrefs = (fragment: string) => [...fragment.matchAll(/href="([^"]+)"/g)].map((m) => m[1] as string);
const specsOf = (page: string) =>
  JSON.parse(element(page, "script", "compare-specs").replace(/^<script[^>]*>|<\/script>$/g, "")) as Record<
    string,
    { data: { values: { targetId: string }[] }; encoding: { x: { field: string; title: string } } }
  >;

beforeAll(async () => {
  // The fixture store of three runs a target, with slow-large's last rag run answering nothing (an alert),
  // built at BUILT_AT once for the files that share it: see shared-site.ts.
  ({ outDir } = await sharedSite(inject("sharedSiteDir")));
}, 300_000);

describe("compare pages per scenario", () => {
  it("lists a closed-loop scenario's series with that scenario's figures, linking its target pages", () => {
    // Prepare: the rag figures as the site publishes them.
    const index = publishedIndex(outDir);
    const rag = index.series.find(
      (s: { id: string; scenario: string }) => s.id === "fast-small" && s.scenario === RAG.scenario,
    );
    const chat = index.targets.find((s: { id: string }) => s.id === "fast-small");
    // Act
    const page = html(`s/${RAG.scenario}/compare`);
    const table = element(page, "table", "compare-numbers");
    const byTarget = rows(table);
    // Assess: the rag targets only, with rag's peak, linked to their rag pages from three levels down.
    expect([...byTarget.keys()]).toEqual([...RAG.targets].sort());
    // A site within the row budget compares every target, as before the fold (catalogue.test.ts: past it).
    expect(page).not.toContain('id="compare-folded"');
    const row = byTarget.get("fast-small") as string;
    expect(rag.latest.summary.peak.aggregateOutputTokensPerSecond).not.toBe(
      chat.latest.summary.peak.aggregateOutputTokensPerSecond,
    );
    expect(row).toContain(fmt(rag.latest.summary.peak.aggregateOutputTokensPerSecond));
    expect(row).toContain(fmt(rag.latest.summary.singleStream.outputTokensPerSecond, 1));
    expect(hrefs(table)).toContain(`../../../targets/fast-small/s/${RAG.scenario}/`);
    // The overlay charts hold the rag series alone; the trade-off chart is rag's.
    const specs = specsOf(page);
    expect(Object.keys(specs)).toEqual(["aggregate", "perStream"]);
    // (slow-large's last rag run answered nothing: it has no point to draw.)
    expect(new Set(specs.aggregate?.data.values.map((v) => v.targetId))).toEqual(new Set(["fast-small"]));
    expect(specs.aggregate?.data.values).toHaveLength(rag.latest.levels.length);
    expect(rows(element(page, "table", "compare-tradeoff-numbers")).size).toBeGreaterThan(0);
    expect(
      [...rows(element(page, "table", "compare-tradeoff-numbers")).keys()].every((id) =>
        (RAG.targets as readonly string[]).includes(id),
      ),
    ).toBe(true);
    // Assets and the other scenarios' compare pages resolve from the deeper path.
    expect(hrefs(page)).toEqual(
      expect.arrayContaining(["../../../compare/", `../../../s/${OPEN_LOOP.scenario}/compare/`]),
    );
    expect(page).toContain('src="../../../assets/vega.min.js"');
  });

  it("keeps /compare/ the first scenario's, linking every other scenario's compare page", () => {
    const page = html("compare");
    expect([...rows(element(page, "table", "compare-numbers")).keys()]).not.toContain(OPEN_LOOP.id);
    expect(hrefs(page)).toEqual(
      expect.arrayContaining([`../s/${RAG.scenario}/compare/`, `../s/${OPEN_LOOP.scenario}/compare/`]),
    );
    expect(hrefs(element(page, "table", "compare-numbers"))).toContain("../targets/fast-small/");
    expect(page).toContain('src="../assets/vega.min.js"');
    expect(existsSync(join(outDir, "s/chat/compare/index.html"))).toBe(true);
  });

  it("shows an open-loop scenario in requests/s: capacity in the table, curves against the offered rate", () => {
    const page = html(`s/${OPEN_LOOP.scenario}/compare`);
    const table = element(page, "table", "compare-numbers");
    expect(table).toContain("capacity req/s");
    expect(table).not.toMatch(/at N|concurrency/);
    // Capacity is the highest rate meeting the SLO: 2 requests/s in the fixture.
    const capacity = OPEN_LOOP.rates[OPEN_LOOP.meetsSlo.lastIndexOf(true)] as number;
    expect(rows(table).get(OPEN_LOOP.id)).toContain(fmt(capacity, 2));
    expect(hrefs(table)).toContain(`../../../targets/${OPEN_LOOP.id}/`);
    const specs = specsOf(page);
    for (const spec of Object.values(specs)) {
      expect(spec.encoding.x).toMatchObject({ field: "rate", title: RATE_TITLE });
      expect(JSON.stringify(spec)).not.toContain("concurrency");
    }
    expect(page).not.toContain('id="compare-tradeoff"');
  });
});

describe("the alerts page across scenarios", () => {
  it("names a non-chat alert's scenario and links its scenario's target page", () => {
    const page = html("alerts");
    const alerts = JSON.parse(readFileSync(join(outDir, "data/alerts.json"), "utf8")).alerts as {
      id: string;
      targetId: string;
      scenario: string;
    }[];
    const stopped = alerts.find((a) => a.targetId === STOPPED && a.scenario === RAG.scenario);
    expect(stopped).toBeDefined();
    const article = element(page, "article", stopped?.id as string);
    expect(article).toContain(`scenario ${RAG.scenario}`);
    expect(hrefs(article)).toContain(`../targets/${STOPPED}/s/${RAG.scenario}/`);
  });

  it("lists a target that ran only a non-first scenario for subscriptions and feeds", () => {
    const page = html("alerts");
    expect(element(page, "form", "subscribe")).toContain(`value="${OPEN_LOOP.id}"`);
    expect(hrefs(page)).toContain(`../feeds/${OPEN_LOOP.id}.xml`);
    expect(existsSync(join(outDir, `feeds/${OPEN_LOOP.id}.xml`))).toBe(true);
  });

  it("names the scenario in the target feed's entry", () => {
    const feed = readFileSync(join(outDir, `feeds/${STOPPED}.xml`), "utf8");
    expect(feed).toMatch(new RegExp(`<title type="text">\\[open\\][^<]*\\(${RAG.scenario}\\)`));
  });
});
