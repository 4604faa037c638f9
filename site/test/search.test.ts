/**
 * Searched sweeps (issue 44) on the site: the spec of the throughput curves numbers each probed point
 * with its order, `runs.csv` carries the brackets (empty for ladders), and the shared fixture site,
 * in real headless Chromium, shows the searched capacity with its bracket on hover and sorts on it,
 * states the bracket, confidence, stop and spend on the target page, draws the orders by the points,
 * and publishes the brackets in `index.json` and `runs.csv`.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { indexEntryFor } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { syntheticRun } from "@kneeboard/core/synthetic";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runsCsv } from "../src/build/downloads.ts";
import { levelPoints, throughputCurvesSpec } from "../src/lib/charts/index.ts";
import { searchedCapacity, searchSection } from "../src/lib/search.ts";
import { historyPoint } from "../src/lib/site-data.ts";
import { renderSvg } from "../src/lib/svg.ts";
import { type StaticServer, serveStatic } from "../src/serve.ts";
import { launchChromium } from "./browser.ts";
import { ladderRequests, openLoopRun, SEARCHED, SEARCHED_SMALL, type SearchedSpec, searchedRun } from "./fixture.ts";
import { publishedIndex, publishedRunsCsv } from "./published.ts";
import { sharedSite } from "./shared-site.ts";

// biome-ignore lint/suspicious/noExplicitAny: the specs are checked structurally, whatever vega-lite's union types say
type Loose = any;

/** A synthetic searched run of a spec, and the same target walking the doubling ladder. */
const searched = (spec: SearchedSpec) =>
  searchedRun(
    syntheticRun({
      targetId: spec.id,
      startedAt: "2026-11-01T00:00:00Z",
      singleStreamTokensPerSecond: spec.single,
      ttftMs: spec.ttft,
      saturationStreams: spec.saturation,
      concurrency: [...spec.probes].sort((a, b) => a - b),
    }),
    spec,
  );
const ladder = syntheticRun({
  targetId: "ladder",
  startedAt: "2026-11-01T00:00:00Z",
  singleStreamTokensPerSecond: 100,
  ttftMs: 200,
  saturationStreams: 8,
});

/** The SVG's text marks' strings that are whole numbers (the probe orders; the knee's label is `knee: N`). */
const numberLabels = (svg: string) =>
  [...svg.matchAll(/<text[^>]*aria-roledescription="text mark"[^>]*>(\d+)<\/text>/g)]
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);

/** The CSV's rows as records by column (no field of these rows is quoted). */
function csvRecords(csv: string): Record<string, string>[] {
  const [header, ...rows] = csv.trim().split("\n");
  const cols = (header ?? "").split(",");
  return rows.map((r) => Object.fromEntries(r.split(",").map((v, i) => [cols[i], v])));
}

describe("the throughput curves of a searched run", () => {
  const doc = searched(SEARCHED);
  const points = levelPoints(doc.levels);
  const spec: Loose = throughputCurvesSpec({ title: "t", axis: "concurrency", levels: points, knee: null });

  it("label each probed point with its order, on the aggregate and the per-stream curve alike", () => {
    for (const measure of spec.layer.slice(0, 2)) {
      const [line, labels] = measure.layer;
      expect(line.mark.type).toBe("line");
      expect(labels.mark.type).toBe("text");
      // The label shares its line's data and y encoding: it sits on the point of its load.
      expect(labels.encoding.y).toEqual(measure.encoding.y);
      const byLoad = Object.fromEntries(measure.data.values.map((r: Loose) => [r.concurrency, r.probe]));
      expect(byLoad).toEqual(Object.fromEntries(SEARCHED.probes.map((n, i) => [n, i + 1])));
    }
    expect(spec.description).toContain("the order in which the search ran that level");
  });

  it("draws each order once by each curve's point, and a ladder's curves carry no number", async () => {
    const orders = SEARCHED.probes.map((_, i) => i + 1);
    expect(numberLabels(await renderSvg(spec))).toEqual([...orders, ...orders].sort((a, b) => a - b));
    const plain: Loose = throughputCurvesSpec({
      title: "t",
      axis: "concurrency",
      levels: levelPoints(ladder.levels),
      knee: null,
    });
    expect(plain.layer[0].mark.type).toBe("line");
    expect(numberLabels(await renderSvg(plain))).toEqual([]);
  });
});

describe("an open loop's searched rates", () => {
  // Rates 0.5 to 4 req/s probed 1, 2, 4, then 3: capacity undecided between 2 and 3 (a level at the boundary stayed undecided).
  const base = openLoopRun(
    syntheticRun({
      targetId: "rates",
      startedAt: "2026-11-01T00:00:00Z",
      singleStreamTokensPerSecond: 100,
      ttftMs: 200,
      saturationStreams: 4,
      concurrency: [1, 2, 3, 4],
    }),
    [1, 2, 3, 4],
    [true, true, false, false],
  );
  const order = [1, 2, 4, 3];
  const doc = {
    ...base,
    levels: base.levels.map((l, i) => ({
      ...l,
      probe: {
        order: order[i] as number,
        decision: (["meets", "meets", "undecided", "misses"] as const)[i] as "meets" | "misses" | "undecided",
        ttftP95UpperMs: null,
        perStreamP50LowerTokensPerSecond: null,
        requests: l.requests.sent,
      },
    })),
    summary: {
      ...base.summary,
      search: {
        axis: "rate" as const,
        from: 1,
        to: 4,
        resolution: 0.2,
        confidence: 0.9,
        capacity: { value: 2, lo: 2, hi: 3, status: "undecided" as const },
        knee: { value: null, lo: null, hi: null, status: "not_reached" as const },
        stop: { reason: "undecided" as const, detail: "3 req/s stayed undecided at its cap of 96 requests" },
        requests: 90,
        promptTokens: 0,
        outputTokens: 0,
        ladderRequests: 120,
      },
    },
  };
  const entry = indexEntryFor("runs/rates/0.json", doc);

  it("say the capacity in requests/s with its undecided bracket, in the tooltip and on the page", () => {
    const view = {
      history: [historyPoint(entry)],
      standing: standingOf(entry.targetId, [entry], { now: "2026-11-02T00:00:00Z" }),
    } as Parameters<typeof searchedCapacity>[0];
    const cap = searchedCapacity(view);
    // One run: its own answer, no interval; the tooltip says it stayed undecided.
    expect(cap?.estimate).toEqual({ median: 2, low: 2, high: 2, n: 1 });
    expect(cap?.title).toContain(
      "searched: 2 req/s (median of 1 run; interval: their range) over 1 searched run: 0 found, 1 undecided",
    );
    expect(cap?.title).toContain("2 req/s, in [2, 3] (undecided");
    expect(cap?.title).toContain(
      "90 % confidence, 20 % resolution; 90 requests, where the ladder from 1 to 4 would have sent 120 (75 %)",
    );
    const section = searchSection({ latest: entry, details: { ...doc, key: entry.key } } as Parameters<
      typeof searchSection
    >[0]);
    const [summary, probes] = section?.tables ?? [];
    expect(summary?.rows.find((r) => r.data?.["data-row"] === "search-stop")?.cells[1]?.text).toBe(
      "a level stayed undecided at its request cap: 3 req/s stayed undecided at its cap of 96 requests",
    );
    expect(probes?.rows.map((r) => r.cells.slice(0, 3).map((c) => c.text))).toEqual([
      ["1", "1 req/s", "meets"],
      ["2", "2 req/s", "meets"],
      ["3", "4 req/s", "misses"],
      ["4", "3 req/s", "undecided"],
    ]);
  });

  it("leave a view whose standing runs walked a ladder to the standing's capacity", () => {
    const ladderEntry = indexEntryFor("runs/l/0.json", ladder);
    const view = {
      history: [historyPoint(ladderEntry)],
      standing: standingOf(ladderEntry.targetId, [ladderEntry], { now: "2026-11-02T00:00:00Z" }),
    } as Parameters<typeof searchedCapacity>[0];
    expect(searchedCapacity(view)).toBeNull();
    expect(searchSection({ latest: ladderEntry, details: null } as Parameters<typeof searchSection>[0])).toBeNull();
  });
});

describe("runs.csv", () => {
  /** An open loop walking the rates 0.5, 1, 2 and 4 req/s, meeting the SLO up to 1 req/s. */
  const openLadder = openLoopRun(
    syntheticRun({
      targetId: "open-ladder",
      startedAt: "2026-11-01T00:00:00Z",
      singleStreamTokensPerSecond: 100,
      ttftMs: 200,
      saturationStreams: 4,
      concurrency: [1, 2, 3, 4],
    }),
    [0.5, 1, 2, 4],
    [true, true, false, false],
  );
  const capacityColumns = ["capacity_kind", "capacity_lo", "capacity_hi", "capacity_confidence"];
  const searchColumns = [
    "probe_order",
    "probe_decision",
    "capacity_status",
    "knee_lo",
    "knee_hi",
    "search_requests",
    "search_ladder_requests",
  ];

  it("carries a searched run's brackets and spend on each of its rows, with each level's probe, and leaves the search's empty for a ladder", () => {
    const doc = searched(SEARCHED);
    const knee = doc.summary.search?.knee;
    expect(knee?.status).toBe("found");
    const rows = csvRecords(runsCsv([indexEntryFor("runs/s/0.json", doc), indexEntryFor("runs/l/0.json", ladder)]));
    const search = rows.filter((r) => r.targetId === SEARCHED.id);
    expect(search).toHaveLength(SEARCHED.probes.length);
    const sent = search.reduce((sum, r) => sum + Number(r.sent), 0);
    for (const r of search)
      expect([
        r.capacity_kind,
        r.capacity_lo,
        r.capacity_hi,
        r.capacity_confidence,
        r.capacity_status,
        r.knee_lo,
        r.knee_hi,
        r.search_requests,
        r.search_ladder_requests,
      ]).toEqual([
        "searched",
        "10",
        "11",
        "0.95",
        "found",
        String(knee?.lo),
        String(knee?.hi),
        String(sent),
        String(ladderRequests(1, 64)),
      ]);
    // 152 requests against the ladder's 256: the fixture's search spends less than the ladder it replaces.
    expect(sent).toBeLessThan(ladderRequests(1, 64));
    expect(search.map((r) => [Number(r.concurrency), Number(r.probe_order), r.probe_decision])).toEqual(
      [...SEARCHED.probes]
        .sort((a, b) => a - b)
        .map((n) => [n, SEARCHED.probes.indexOf(n) + 1, n <= SEARCHED.capacity ? "meets" : "misses"]),
    );
    const plain = rows.filter((r) => r.targetId === "ladder");
    expect(plain.length).toBeGreaterThan(0);
    for (const r of plain) expect(searchColumns.map((c) => r[c])).toEqual(searchColumns.map(() => ""));
  });

  it("carries a ladder's capacity bracket, [highest step that met, next step), in users or requests/s", () => {
    const rows = csvRecords(
      runsCsv([indexEntryFor("runs/l/0.json", ladder), indexEntryFor("runs/o/0.json", openLadder)]),
    );
    const bracketOf = (id: string) =>
      new Set(rows.filter((r) => r.targetId === id).map((r) => capacityColumns.map((c) => r[c]).join(" ")));
    // The closed ladder met the SLO up to its top step, N = 32: not measured above it.
    expect(bracketOf("ladder")).toEqual(new Set(["ladder 32  "]));
    // The open ladder met at 1 req/s and missed at 2: [1, 2) requests/s.
    expect(bracketOf("open-ladder")).toEqual(new Set(["ladder 1 2 "]));
    expect(rows.filter((r) => r.targetId === "open-ladder")).toHaveLength(4);
  });

  it("reads a bracket recorded before brackets from the run's search, and leaves an old ladder's empty", () => {
    const doc = searched(SEARCHED);
    const old = (d: typeof doc) => ({ ...d, summary: { ...d.summary, capacityBracket: null } });
    const rows = csvRecords(
      runsCsv([indexEntryFor("runs/s/0.json", old(doc)), indexEntryFor("runs/l/0.json", old(ladder))]),
    );
    const cells = (id: string) =>
      new Set(rows.filter((r) => r.targetId === id).map((r) => capacityColumns.map((c) => r[c]).join(" ")));
    expect(cells(SEARCHED.id)).toEqual(new Set(["searched 10 11 0.95"]));
    expect(cells("ladder")).toEqual(new Set(["   "]));
  });
});

describe("the built site's searched targets", () => {
  let browser: Browser;
  let server: StaticServer;
  let base: string;
  let outDir: string;

  const open = async (path: string): Promise<Page> => {
    const page = await browser.newPage();
    await page.goto(new URL(path, base).href, { waitUntil: "load" });
    return page;
  };

  beforeAll(async () => {
    ({ outDir } = await sharedSite(inject("sharedSiteDir")));
    server = await serveStatic(dirname(dirname(outDir)));
    base = `${server.url}prefix/dist/`;
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("show the searched capacity on the leaderboard, its bracket on hover, and sort on it", async () => {
    const page = await open(`s/${SEARCHED.scenario}/`);
    const capacityOf = (id: string) =>
      page.$eval(`#leaderboard tr[data-target="${id}"] td.searched`, (td) => ({
        text: td.textContent?.trim(),
        value: (td as HTMLElement).dataset.v,
        title: td.getAttribute("title") ?? "",
      }));
    const big = await capacityOf(SEARCHED.id);
    // Its three runs found 11, 12 and 10 users: the median, 11, with the interval they give (their range at n = 3).
    expect(SEARCHED.capacities).toEqual([11, 12, 10]);
    // With the newest run's bracket at its confidence, marked searched; sorted on the median of the lower ends.
    expect([big.text, big.value]).toEqual(["11 (10-12)[10, 11] at 95 %, searched", "11"]);
    expect(big.title).toContain(
      "searched: 11 users (10 to 12: median of 3 runs; interval: their range) over 3 searched runs: 3 found, 0 undecided",
    );
    // The newest run's own bracket, confidence and spend, and what the older runs found, newest first.
    expect(big.title).toContain("Newest run of the standing: 10 users, in [10, 11] (found)");
    expect(big.title).toContain("95 % confidence, 10 % resolution");
    expect(big.title).toContain(`would have sent ${ladderRequests(1, 64)}`);
    expect(big.title).toContain("Earlier runs found 12 users, 11 users");
    const small = await capacityOf(SEARCHED_SMALL.id);
    // Both its runs found 6: no interval to show.
    expect([small.text, small.value]).toEqual(["6[6, 7] at 95 %, searched", "6"]);
    expect(small.title).toContain("6 users, in [6, 7] (found)");
    const order = () =>
      page.$$eval("#leaderboard tbody tr[data-target]", (rows) => rows.map((r) => (r as HTMLElement).dataset.target));
    await page.click('th:has-text("capacity") button');
    const first = await order();
    await page.click('th:has-text("capacity") button');
    const second = await order();
    // One click sorts one way, the next the other: by the searched values, 10 above 6 or below it.
    expect(new Set([JSON.stringify(first), JSON.stringify(second)])).toEqual(
      new Set([JSON.stringify([SEARCHED.id, SEARCHED_SMALL.id]), JSON.stringify([SEARCHED_SMALL.id, SEARCHED.id])]),
    );
    await page.close();
  });

  it("state the bracket, confidence, stop and spend, and the probes in order, on the target page", async () => {
    const index = publishedIndex(outDir) as {
      series: { id: string; latest: { summary: { search: { knee: { value: number; lo: number; hi: number } } } } }[];
    };
    const knee = index.series.find((t) => t.id === SEARCHED.id)?.latest.summary.search.knee;
    const page = await open(`targets/${SEARCHED.id}/`);
    // The headline's capacity is the standing's searched one, as the leaderboard's, with the newest run's bracket on hover.
    expect(await page.textContent("#searched-capacity")).toBe("11 users (10-12)");
    expect(await page.getAttribute("#searched-capacity", "title")).toContain("10 users, in [10, 11] (found)");
    // The knee likewise over the runs (each run's knee along its own probed levels).
    expect(await page.getAttribute("#searched-knee", "title")).toContain("over 3 searched runs: 3 found");
    const row = (name: string) => page.$eval(`#search tr[data-row="${name}"] td`, (td) => td.textContent?.trim());
    expect(await row("search-capacity")).toBe("10 users, in [10, 11] (found)");
    expect(await row("search-knee")).toBe(`${knee?.value} users, in [${knee?.lo}, ${knee?.hi}] (found)`);
    expect(await row("search-precision")).toBe("95 % confidence, 10 % resolution");
    expect(await row("search-stop")).toContain("the bracket narrowed to the resolution");
    const doc = searched(SEARCHED);
    const spent = doc.summary.search?.requests as number;
    expect(await row("search-cost")).toBe(
      `${spent} requests, where the ladder from 1 to 64 would have sent ${ladderRequests(1, 64)} (${Math.round((100 * spent) / ladderRequests(1, 64))} %)`,
    );
    const probes = await page.$$eval("#search-probes tbody tr", (rows) =>
      rows.map((r) =>
        Array.from(r.querySelectorAll("td"))
          .slice(0, 3)
          .map((td) => td.textContent?.trim()),
      ),
    );
    expect(probes).toEqual(
      SEARCHED.probes.map((n, i) => [String(i + 1), `N=${n}`, n <= SEARCHED.capacity ? "meets" : "misses"]),
    );
    // The curves number each probed point: every order by the aggregate and by the per-stream point.
    const labels = await page.$$eval("#curves svg text[aria-roledescription='text mark']", (ts) =>
      ts.map((t) => t.textContent ?? "").filter((t) => /^\d+$/.test(t)),
    );
    const orders = SEARCHED.probes.map((_, i) => String(i + 1));
    expect(labels.sort()).toEqual([...orders, ...orders].sort());
    await page.close();
  });

  it("say nothing of a search on a ladder's target page", () => {
    const page = readFileSync(join(outDir, "targets", "fast-small", "index.html"), "utf8");
    expect(page).not.toContain('id="search"');
    expect(page).not.toContain("How the search found its levels");
  });

  it("publish the brackets per target in index.json, null for a ladder", () => {
    const index = publishedIndex(outDir) as {
      targets: { id: string; search: unknown }[];
      series: { id: string; search: unknown }[];
    };
    const all = [...index.targets, ...index.series];
    const of = (id: string) => all.find((t) => t.id === id)?.search;
    expect(of(SEARCHED_SMALL.id)).toMatchObject({ capacity_lo: 6, capacity_hi: 7, capacity_status: "found" });
    expect(of(SEARCHED.id)).toMatchObject({
      capacity_kind: "searched",
      capacity_lo: 10,
      capacity_hi: 11,
      capacity_confidence: 0.95,
      capacity_status: "found",
      search_ladder_requests: ladderRequests(1, 64),
    });
    expect(of("fast-small")).toBeNull();
  });

  it("publish each searched series' capacity over its runs in index.json's standing, null for a ladder", () => {
    const index = publishedIndex(outDir) as {
      series: { id: string; standing: { search: { axis: string; capacity: unknown } | null } }[];
    };
    const of = (id: string) => index.series.find((t) => t.id === id)?.standing.search;
    expect(of(SEARCHED.id)?.axis).toBe("concurrency");
    expect(of(SEARCHED.id)?.capacity).toEqual({
      estimate: { median: 11, low: 10, high: 12, n: 3 },
      runs: 3,
      found: 3,
      undecided: 0,
    });
    expect(of(SEARCHED_SMALL.id)?.capacity).toMatchObject({ estimate: { median: 6, low: 6, high: 6, n: 2 } });
    expect(of("fast-small")).toBeNull();
  });

  it("publish the brackets on the searched runs' rows of runs.csv", () => {
    const rows = csvRecords(publishedRunsCsv(outDir)).filter((r) => r.targetId === SEARCHED.id);
    expect(rows).toHaveLength(SEARCHED.runs * SEARCHED.probes.length);
    // Each run's own bracket on its rows: the runs found 11 in [11, 12], 12 in [12, 16] and 10 in [10, 11].
    expect(
      new Set(rows.map((r) => `${r.capacity_kind} ${r.capacity_lo} ${r.capacity_hi} ${r.capacity_status}`)),
    ).toEqual(new Set(["searched 11 12 found", "searched 12 16 found", "searched 10 11 found"]));
    // A ladder's rows carry its bracket too, with no search's columns.
    const ladderRows = csvRecords(publishedRunsCsv(outDir)).filter((r) => r.targetId === "fast-small");
    expect(ladderRows.length).toBeGreaterThan(0);
    expect(new Set(ladderRows.map((r) => `${r.capacity_kind} ${r.capacity_status} ${r.capacity_confidence}`))).toEqual(
      new Set(["ladder  "]),
    );
  });
});
