/** The built site in real headless Chromium, served on 127.0.0.1 from a fixture store (the shared fixture site). */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { concurrencyOf, loadPosition, loadWords } from "@kneeboard/core/run";
import type { RunIndexEntry } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import type { Standing } from "@kneeboard/core/standing";
import { FolderStore } from "@kneeboard/core/store/folder";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fmt, fmtEstimate } from "../src/lib/format.ts";
import { type StaticServer, serveStatic } from "../src/serve.ts";
import { launchChromium } from "./browser.ts";
import { CHAT_OPEN, FIXTURE_TARGETS, HOSTILE_LABEL, MALFORMED_KEY, SHARED_MODEL_KEY } from "./fixture.ts";
import { publishedIndex } from "./published.ts";
import { NO_VALID, RUNS_PER_TARGET, sharedSite, sourcesState, THREE } from "./shared-site.ts";

let browser: Browser;
let server: StaticServer;
let base: string;
let latest: Map<string, RunIndexEntry>;
/** The chat scenario's closed-loop targets: the fixture's, one of three runs, and one with no valid run. */
const CLOSED_LOOP_IDS = [...FIXTURE_TARGETS.map((t) => t.id), THREE.id, NO_VALID.id];
/** Each target's standing as `/data/index.json` publishes it. */
let standingOf: Map<string, Standing>;
let storeRoot: string;
let outDir: string;
let stderr = "";
let buildOutput = "";
const consoleErrors: string[] = [];
const foreignRequests: string[] = [];

/** A page that records console errors and refuses (and records) any request off this server. */
async function open(path: string): Promise<Page> {
  const page = await browser.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(`${path}: ${m.text()}`);
  });
  page.on("pageerror", (e) => consoleErrors.push(`${path}: ${e.message}`));
  page.on("dialog", (d) => {
    consoleErrors.push(`${path}: dialog ${d.message()}`);
    void d.dismiss();
  });
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith("data:")) return route.continue();
    foreignRequests.push(url);
    return route.abort();
  });
  await page.goto(new URL(path, base).href, { waitUntil: "load" });
  return page;
}

async function rowOrder(page: Page): Promise<string[]> {
  return page.$$eval("#leaderboard tbody tr[data-target]", (rows) =>
    rows.map((r) => (r as HTMLElement).dataset.target ?? ""),
  );
}

/** Every path under the site's sources with its modification time, before and after the build: it must leave them as they were. */
let sourcesBefore: string[];
let sourcesAfter: string[];

beforeAll(async () => {
  // The fixture store of RUNS_PER_TARGET runs a target, indexed and built at BUILT_AT as `kneeboard site`
  // does (documents copied in by hand join the index, then the build; both warn), once for the files
  // that share it: see shared-site.ts.
  const site = await sharedSite(inject("sharedSiteDir"));
  ({ storeRoot, sourcesBefore, sourcesAfter, outDir } = site);
  stderr = site.warnings;
  buildOutput = site.output;
  latest = new Map();
  for (const e of await new StoreRunIndex(new FolderStore(storeRoot)).entries()) latest.set(e.targetId, e);
  // Served from two folders up, so every page lives under /prefix/dist/: links must be relative.
  server = await serveStatic(dirname(dirname(outDir)));
  base = `${server.url}prefix/dist/`;
  const published = publishedIndex(outDir) as { targets: { id: string; standing: Standing }[] };
  // The closed-loop targets' standings: the scenario's open-loop target is ranked apart, by requests/s.
  standingOf = new Map(published.targets.filter((t) => t.id !== CHAT_OPEN.id).map((t) => [t.id, t.standing]));
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the built site", () => {
  it("was built without writing anything under the site's sources (they may be read-only, as in Lambda)", () => {
    expect(sourcesAfter).toEqual(sourcesBefore);
    expect(sourcesState()).toEqual(sourcesBefore);
  });

  it("warns about the malformed run document by its key and builds anyway", () => {
    expect(stderr).toContain(MALFORMED_KEY);
  });

  it("prints no warning of its own while building (Rollup's about zod's comments were in every build)", () => {
    expect(buildOutput).not.toMatch(/WARN|warning/i);
  });

  it("lists every closed-loop target on the leaderboard with the medians and intervals of index.json's standing", async () => {
    const page = await open("./");
    const ids = await rowOrder(page);
    // The open-loop target of the same scenario takes no row here, and takes no row away; a target with
    // no valid run has a row of dashes.
    expect(ids.sort()).toEqual(CLOSED_LOOP_IDS.sort());
    const headers = await page.$$eval("#leaderboard thead th", (ths) => ths.map((th) => th.textContent?.trim() ?? ""));
    expect(headers[2]).toContain("single-stream");
    expect(headers[4]).toContain("peak aggregate");
    let intervals = 0;
    for (const t of FIXTURE_TARGETS) {
      const st = standingOf.get(t.id) as Standing;
      // Every complete run of the three is in the window; the partial one never enters.
      expect(st.runIds).toHaveLength(t.id === "partial-one" ? RUNS_PER_TARGET - 1 : RUNS_PER_TARGET);
      const cells = await page.$$eval(`#leaderboard tr[data-target="${t.id}"] td`, (tds) =>
        tds.map((td) => ({ text: td.textContent?.trim() ?? "", title: td.getAttribute("title") ?? "" })),
      );
      // The interval sits on a second line of the cell; the cell reads as fmtEstimate writes it.
      const text = cells.map((c) => c.text);
      // Numbers, never dashes (the home page once showed only dashes beside an open-loop target).
      expect(text[2]).toMatch(/^\d/);
      expect(text[4]).toMatch(/^\d/);
      expect(text[2]).toBe(fmtEstimate(st.singleStream?.outputTokensPerSecond, 1));
      expect(text[3]).toBe(fmtEstimate(st.singleStream?.ttftP50Ms));
      // A peak read over its whole level (a synthetic run records no steady window) says so under the figure.
      const whole = "whole level";
      if (st.peak) expect(text[4]?.endsWith(whole), t.id).toBe(true);
      const peakText = text[4]?.replace(whole, "");
      expect(peakText).toBe(fmtEstimate(st.peak?.aggregateOutputTokensPerSecond));
      expect(text[5]).toBe(fmt(st.peak ? concurrencyOf(st.peak.load) : null));
      expect(text[6]).toBe(fmtEstimate(st.peak?.perStreamOutputTokensPerSecond, 1));
      // The n runs of the peak's estimate in its tooltip (the runs column lives there now).
      expect(cells[4]?.title).toContain(`median of ${st.peak?.aggregateOutputTokensPerSecond.n} runs`);
      const peak = st.peak?.aggregateOutputTokensPerSecond;
      // An interval whose bounds round to one figure is shown as the median alone.
      if (peak && fmt(peak.low) !== fmt(peak.high)) {
        intervals++;
        expect(peakText).toMatch(/^[\d,]+ \([\d,]+-[\d,]+\)$/);
      }
    }
    // Three noisy runs give real intervals, not single points.
    expect(intervals).toBeGreaterThanOrEqual(3);
    const partialRow = await page.textContent('#leaderboard tr[data-target="partial-one"]');
    expect(partialRow).toContain("partial (deadline)");
    expect(await page.textContent("main")).toContain("simulated");
    await page.close();
  });

  it("tables the scenario's open-loop target by capacity in requests/s on the same page, apart from the ranking", async () => {
    const page = await open("./");
    const open_ = await page.$$eval("#rate-leaderboard tbody tr[data-target]", (rows) =>
      rows.map((r) => (r as HTMLElement).dataset.target ?? ""),
    );
    expect(open_).toEqual([CHAT_OPEN.id]);
    const capacity = CHAT_OPEN.rates[CHAT_OPEN.meetsSlo.lastIndexOf(true)] as number;
    const cells = await page.$$eval(`#rate-leaderboard tr[data-target="${CHAT_OPEN.id}"] td`, (tds) =>
      tds.map((td) => td.textContent?.trim() ?? ""),
    );
    expect(cells[2]).toMatch(new RegExp(`^${capacity}\\b`));
    // One h1: the throughput leaderboard leads; the capacity table is a section under it.
    expect(await page.$$eval("h1", (h) => h.map((x) => x.textContent ?? ""))).toEqual([
      expect.stringContaining("one user, and everyone at once"),
    ]);
    await page.close();
  });

  it("ranks by the standing's peak, sharing a rank between overlapping intervals", async () => {
    const page = await open("./");
    const peaks = [...standingOf.values()].map((s) => ({
      id: s.targetId,
      e: s.peak?.aggregateOutputTokensPerSecond ?? null,
    }));
    const expected = new Map(
      peaks.map(({ id, e }) => [
        id,
        e === null ? null : 1 + peaks.filter((o) => o.e !== null && o.e.low > e.high).length,
      ]),
    );
    const shown = await page.$$eval("#leaderboard tbody tr[data-target]", (rows) =>
      rows.map((r) => [(r as HTMLElement).dataset.target ?? "", r.querySelector("td")?.textContent?.trim() ?? ""]),
    );
    const ranks = [...expected.values()];
    for (const [id, label] of shown) {
      const rank = expected.get(id as string) ?? null;
      const shared = ranks.filter((r) => r === rank).length > 1;
      expect(label, id).toBe(rank === null ? "—" : `${shared ? "=" : ""}${rank}`);
    }
    // The seeded fixture has two targets whose peak intervals overlap: the tie is shown.
    expect(shown.some(([, label]) => label?.startsWith("="))).toBe(true);
    // Rows run in rank order, model groups included: a worse rank never sits above a better one.
    const order = shown.map(([id]) => expected.get(id as string) ?? Number.POSITIVE_INFINITY);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // A model's routes that rank together share a row group under one header.
    const bodies = await page.$$eval("#leaderboard tbody", (all) =>
      all.map((b) => Array.from(b.querySelectorAll("tr[data-target]"), (r) => (r as HTMLElement).dataset.model ?? "")),
    );
    for (const b of bodies) expect(new Set(b).size).toBe(1);
    expect(bodies.flat()).toHaveLength(shown.length);
    await page.close();
  });

  it("sorts by peak aggregate and by single-stream tok/s", async () => {
    const page = await open("./");
    // Highest first (or lowest, `up`); a target with no figure stays last either way.
    const by = (pick: (s: Standing) => number | undefined, up = false) => {
      const all = [...standingOf.values()];
      const figured = all.filter((s) => pick(s) !== undefined);
      figured.sort((a, b) => ((pick(b) as number) - (pick(a) as number)) * (up ? -1 : 1));
      return [...figured, ...all.filter((s) => pick(s) === undefined)].map((s) => s.targetId);
    };
    const aggregate = (s: Standing) => s.peak?.aggregateOutputTokensPerSecond.median;
    const single = (s: Standing) => s.singleStream?.outputTokensPerSecond?.median;
    expect(by(aggregate)).not.toEqual(by(single));
    expect(standingOf.get(NO_VALID.id)?.singleStream).toBeNull();

    await page.click('th:has-text("single-stream tok/s") button');
    expect(await rowOrder(page)).toEqual(by(single));
    await page.click('th:has-text("single-stream tok/s") button');
    expect(await rowOrder(page)).toEqual(by(single, true));
    await page.click('th:has-text("peak aggregate tok/s") button');
    expect(await rowOrder(page)).toEqual(by(aggregate));
    await page.close();
  });

  it("shows both curves, the knee and the per-level table on a target page", async () => {
    const page = await open("targets/fast-small/");
    const entry = latest.get("fast-small") as RunIndexEntry;
    const curves = await page.$("#curves svg");
    expect(curves).not.toBeNull();
    const text = (await page.textContent("#curves")) ?? "";
    expect(text).toContain("aggregate tok/s");
    expect(text).toContain("per-stream tok/s");
    expect(text).toContain(`knee: ${entry.summary.kneeConcurrency}`);
    expect(await page.$$("#curves svg path[aria-roledescription='line mark']")).toHaveLength(2);
    expect(await page.$$("#levels tbody tr")).toHaveLength(entry.levels.length);
    expect(await page.$("#latency svg")).not.toBeNull();
    expect(await page.$("#history svg")).not.toBeNull();
    expect(await page.$$("#runs tbody tr")).toHaveLength(RUNS_PER_TARGET);
    // The standing's median curves, each with its interval band, and a row per level.
    const standing = standingOf.get("fast-small") as Standing;
    expect(await page.$$("#standing-curves svg path[aria-roledescription='line mark']")).toHaveLength(2);
    expect(await page.$$("#standing-curves svg path[aria-roledescription='area mark']")).toHaveLength(2);
    expect(await page.$$("#standing-levels tbody tr")).toHaveLength(standing.levels.length);
    // Whether each level meets the SLO on the medians of its SLO figures (failed requests counted as misses).
    const meets = await page.$$eval("#standing-levels tbody tr", (trs) =>
      trs.map((tr) => tr.children[7]?.textContent?.trim()),
    );
    expect(meets).toEqual(standing.levels.map((l) => (l.meetsSlo === null ? "—" : l.meetsSlo ? "yes" : "no")));
    expect(meets).toContain("yes");
    await page.close();
  });

  it("answers 200 for every download, with run documents equal to the store's", async () => {
    const page = await open("data/");
    const links = await page.$$eval("#downloads a", (as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(links.length).toBeGreaterThanOrEqual(6);
    const runLinks = await (await open("targets/slow-large/")).$$eval("#runs a", (as) =>
      as.map((a) => (a as HTMLAnchorElement).href),
    );
    for (const href of [...links, ...runLinks]) {
      const response = await fetch(href);
      expect(response.status, href).toBe(200);
      const key = href.split("/prefix/dist/data/")[1] as string;
      if (key.startsWith("runs/")) expect(await response.text()).toBe(readFileSync(join(storeRoot, key), "utf8"));
    }
    // The top index lists each model's file; those files, served, hold every target.
    const top = (await (await fetch(`${base}data/index.json`)).json()) as { models: { index: string }[] };
    const ids: string[] = [];
    for (const m of top.models) {
      const response = await fetch(`${base}${m.index}`);
      expect(response.status, m.index).toBe(200);
      ids.push(...((await response.json()) as { targets: { id: string }[] }).targets.map((t) => t.id));
    }
    expect(ids.sort()).toEqual([...CLOSED_LOOP_IDS, CHAT_OPEN.id].sort());
    await page.close();
  });

  it("draws the compare page's charts from the local vega copy", async () => {
    const page = await open("compare/");
    await page.waitForSelector("#chart-aggregate svg");
    await page.check('input[value="slow-large"]');
    await page.waitForFunction(
      () => document.querySelectorAll("#chart-aggregate svg path[aria-roledescription='line mark']").length === 4,
    );
    await page.close();
  });

  it("groups the leaderboard by model and overlays a model's two closed-loop routes on its page, its open-loop route apart", async () => {
    const board = await open("./");
    const group = await board.$$eval(`#leaderboard tr.group[data-model="${SHARED_MODEL_KEY}"] a`, (as) =>
      as.map((a) => (a as HTMLAnchorElement).getAttribute("href")),
    );
    // One header per stretch of the model's routes in rank order (two when another model ranks between them).
    expect(group.length).toBeGreaterThanOrEqual(1);
    expect(new Set(group)).toEqual(new Set([`models/${SHARED_MODEL_KEY}/`]));
    // A model with one route is one row, with no group header.
    expect(await board.$$("#leaderboard tr.group")).toHaveLength(group.length);
    // Sorting drops the grouping (sorted rows no longer sit under their model).
    await board.click('th:has-text("single-stream tok/s") button');
    expect(await board.$$("#leaderboard tr.group")).toHaveLength(0);
    await board.close();

    const page = await open(`models/${SHARED_MODEL_KEY}/`);
    expect(
      await page.$$eval("#model-routes tbody tr", (rows) => rows.map((r) => (r as HTMLElement).dataset.target)),
    ).toEqual(["fast-small", "slow-large"]);
    for (const chart of ["#model-aggregate", "#model-perstream", "#model-tradeoff"])
      expect(await page.$$(`${chart} svg path[aria-roledescription='line mark']`), chart).toHaveLength(2);
    // One table per level any route ran, the routes side by side in each.
    const levels = (latest.get("fast-small") as RunIndexEntry).levels.map((l) => loadPosition(l.load));
    for (const n of levels) expect(await page.$$(`#model-level-${n} tbody tr`), `N=${n}`).toHaveLength(2);
    // Capacity and cost side by side: the hourly route declares a cost; the metered one says it differs from its list price.
    const costs = await page.$$eval("#model-routes td.cost", (tds) => tds.map((td) => td.textContent ?? ""));
    expect(costs.every((c) => c.includes("declared"))).toBe(true);
    expect(costs[0]).toContain("metered");
    expect(costs[0]).toMatch(/metered \d+ % (above|below) declared/);
    // The model's open-loop route in the same scenario: ranked by requests/s and drawn against the rate, below.
    expect(
      await page.$$eval("#model-rate-routes tbody tr", (rows) => rows.map((r) => (r as HTMLElement).dataset.target)),
    ).toEqual([CHAT_OPEN.id]);
    expect(await page.$$("#model-rate-throughput svg path[aria-roledescription='line mark']")).not.toHaveLength(0);
    await page.close();
  });

  it("reaches /at/16/ from the leaderboard without JavaScript, ranked by per-stream tok/s at 16", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(base, { waitUntil: "load" });
    await page.click('nav.levels a:text-is("N=16")');
    await page.waitForURL(/\/at\/16\/$/);
    const shown = await page.$$eval("#at-level tbody tr", (rows) =>
      rows.map((r) => [(r as HTMLElement).dataset.target ?? "", r.querySelector("td")?.textContent?.trim() ?? ""]),
    );
    // A target with no standing at 16 but a latest run that measured it (no valid run) is shown, unranked.
    const at16 = [...standingOf.values()].flatMap((s) => {
      const level = s.levels.find((l) => concurrencyOf(l.load) === 16);
      if (level) return [{ id: s.targetId, e: level.ranked ? level.perStreamOutputTokensPerSecondP50 : null }];
      const measured = latest.get(s.targetId)?.levels.some((l) => concurrencyOf(l.load) === 16);
      return measured ? [{ id: s.targetId, e: null }] : [];
    });
    expect(shown.map(([id]) => id).sort()).toEqual(at16.map((t) => t.id).sort());
    const expected = new Map(
      at16.map(({ id, e }) => [
        id,
        e === null ? null : 1 + at16.filter((o) => o.e !== null && o.e.low > e.high).length,
      ]),
    );
    const ranks = [...expected.values()];
    for (const [id, label] of shown) {
      const rank = expected.get(id as string) ?? null;
      const shared = ranks.filter((r) => r === rank).length > 1;
      expect(label, id).toBe(rank === null ? "—" : `${shared ? "=" : ""}${rank}`);
    }
    const order = shown.map(([id]) => expected.get(id as string) ?? Number.POSITIVE_INFINITY);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // Ranked rows come by descending median per-stream tok/s where ranks differ.
    const medians = shown
      .filter(([id]) => expected.get(id as string) !== null)
      .map(([id]) => at16.find((t) => t.id === id)?.e?.median ?? 0);
    expect(medians.length).toBeGreaterThan(1);
    await context.close();
  });

  it("shows capacity at the SLO in words and the cost at the peak on the leaderboard", async () => {
    const page = await open("./");
    const header = (await page.textContent("#leaderboard thead")) ?? "";
    expect(header).toContain("serves N users at ≥ 20 tok/s, TTFT p95 ≤ 2 s");
    const cells = await page.$$eval("#leaderboard thead th", (ths) => ths.map((th) => th.textContent ?? ""));
    const col = cells.findIndex((c) => c.includes("serves N users"));
    for (const [id, s] of standingOf) {
      const cell = await page.$eval(
        `#leaderboard tr[data-target="${id}"] td:nth-child(${col + 1})`,
        (td) => td.textContent?.trim() ?? "",
      );
      // The figure, then the bracket it lies in, marked ladder or searched (or not measured above the top level).
      if (s.capacity) expect(cell.startsWith(fmt(concurrencyOf(s.capacity.load))), `${id}: ${cell}`).toBe(true);
      else expect(cell, id).toMatch(/^(below \d+|—)/);
      expect(cell, id).toMatch(/, ladder$|, searched$|^—no ranked level$/);
    }
    expect(await page.textContent('#leaderboard tr[data-target="fast-small"] td.cost')).toMatch(
      /metered \d+ % above declared/,
    );
    expect(await page.textContent('#leaderboard tr[data-target="slow-large"] td.cost')).toContain("declared");
    expect((await page.textContent('#leaderboard tr[data-target="partial-one"] td.cost'))?.trim()).toBe("—");
    await page.close();
  });

  it("labels every point of the trade-off chart with its concurrency, on target and compare pages", async () => {
    const page = await open("targets/fast-small/");
    const entry = latest.get("fast-small") as RunIndexEntry;
    const labels = await page.$$eval("#tradeoff svg g.mark-text.role-mark text", (ts) => ts.map((t) => t.textContent));
    const drawn = entry.levels.filter(
      (l) => l.valid && l.aggregateOutputTokensPerSecond !== null && l.perStreamOutputTokensPerSecondP50 !== null,
    );
    expect(drawn.length).toBeGreaterThan(2);
    expect(labels).toEqual(drawn.map((l) => loadWords(l.load)));
    expect(await page.$$("#tradeoff svg path[aria-roledescription='line mark']")).toHaveLength(1);
    expect(await page.$$("#tradeoff-numbers tbody tr")).toHaveLength(entry.levels.length);
    await page.close();
    const compare = await open("compare/");
    // One line per closed-loop target with a valid level (the one with none draws nothing).
    const drawnTargets = CLOSED_LOOP_IDS.length - 1;
    expect(await compare.$$("#compare-tradeoff svg path[aria-roledescription='line mark']")).toHaveLength(drawnTargets);
    expect(await compare.$$eval("#compare-tradeoff svg g.mark-text.role-mark text", (ts) => ts.length)).toBeGreaterThan(
      drawnTargets,
    );
    await compare.close();
  });

  it("renders a hostile label as text on every page", async () => {
    for (const path of ["./", "targets/hostile/", "compare/", "alerts/", "models/hostile-model/", "at/16/"]) {
      const page = await open(path);
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.$$("img")).toHaveLength(0);
      expect(await page.textContent("body")).toContain(HOSTILE_LABEL);
      await page.close();
    }
  });

  it("logged no console error and sent no request off localhost on any page", async () => {
    for (const path of ["alerts/", "methodology/", "data/"]) await (await open(path)).close();
    expect(consoleErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });
});
