/** The target and model page models over figures built by load axis, without a site build: which figures, tables and headlines each axis gets. */
import { indexEntryFor } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { beforeAll, describe, expect, it } from "vitest";
import { modelCharts, targetCharts } from "../src/build/charts.ts";
import { targetModelKey } from "../src/lib/models.ts";
import { historyPoint, type TargetView, viewKey } from "../src/lib/site-data.ts";
import { parseSiteIndex, type SiteIndex } from "../src/lib/site-index.ts";
import { modelPage } from "../src/page-models/model.ts";
import { targetPage } from "../src/page-models/target.ts";
import { openLoopRun } from "./fixture.ts";

const NOW = "2026-11-02T00:00:00.000Z";

function view(id: string, model: string, doc: ReturnType<typeof syntheticRun>): TargetView {
  const entry = indexEntryFor(`runs/${id}/0.json`, doc);
  const { samples: _s, ...details } = doc;
  return {
    id,
    scenario: doc.scenario,
    label: id,
    model,
    simulated: true,
    // Both routes serve one model, whatever their target ids.
    latest: { ...entry, modelKey: "m-8b" },
    details: { ...details, key: entry.key },
    history: [historyPoint(entry)],
    standing: standingOf(id, [entry], { now: NOW, scenario: doc.scenario }),
    promptTokens: null,
    sameModel: null,
    toolCalls: null,
  };
}

const run = (id: string) =>
  syntheticRun({
    targetId: id,
    runId: `${id}-0`,
    startedAt: new Date(Date.parse(NOW) - 3_600_000).toISOString(),
    singleStreamTokensPerSecond: 100,
    ttftMs: 200,
    saturationStreams: 4,
    concurrency: [1, 2, 4],
  });

const closed = view("closed", "org/m-8b", run("closed"));
/** An open loop at 1, 2 and 4 requests/s whose highest rate is invalid. */
const openDoc = openLoopRun(run("open"), [1, 2, 4], [true, true, false]);
const open = view("open", "other/m-8b", {
  ...openDoc,
  levels: openDoc.levels.map((l, i) => (i === 2 ? { ...l, valid: false, invalidReasons: ["schedule lag"] } : l)),
});
let index: SiteIndex;

beforeAll(async () => {
  const series = [closed, open];
  const charts: SiteIndex["charts"] = {};
  for (const v of series) charts[viewKey(v)] = await targetCharts(v);
  // Through the schema, as the pages read it.
  index = parseSiteIndex({
    generatedAt: NOW,
    series,
    scenarios: ["chat"],
    charts,
    prefill: {},
    modelCharts: { chat: await modelCharts(series) },
    compareTradeoff: {},
    alerts: [],
    downloads: [],
    runDocuments: { count: 2, bytes: 0 },
    subscribeUrl: null,
    methodologyHtml: "",
  });
}, 120_000);

const ids = (sections: { figures: { id: string }[] }[]) => sections.flatMap((s) => s.figures.map((f) => f.id));
const tables = (sections: { tables: { id: string }[] }[]) => sections.flatMap((s) => s.tables.map((t) => t.id));

describe("the target page model", () => {
  it("gives a closed loop its figures against concurrency, each with the tables of its numbers", () => {
    const page = targetPage(index, { id: "closed" });
    expect(ids(page.sections)).toEqual(["standing-curves", "curves", "tradeoff", "latency"]);
    expect(tables(page.sections)).toEqual(["standing-levels", "curve-numbers", "tradeoff-numbers"]);
    expect(page.headlines.map((h) => h.label)).toContain("scaling efficiency");
    expect(page.lastRun?.blocks[0]?.table.columns[0]?.head).toBe("concurrency N");
    // One run so far: the history says so in a sentence, drawing nothing.
    const [history] = page.history.figures;
    expect(history?.svg).toBeNull();
    expect(history?.empty).toMatch(/^Nothing to draw: one run so far/);
    for (const f of page.sections.flatMap((s) => s.figures)) expect(f.svg, f.id).toContain("<svg");
  });

  it("gives an open loop its figures against the offered rate, and no figure against concurrency", () => {
    const page = targetPage(index, { id: "open" });
    expect(ids(page.sections)).toEqual(["rate-throughput", "rate-latency"]);
    expect(tables(page.sections)).toEqual(["rate-numbers"]);
    for (const f of page.sections.flatMap((s) => s.figures)) {
      expect(f.svg).toContain("offered rate (requests/s)");
      expect(f.svg).not.toContain("concurrency");
    }
    // Met at 2 req/s, missed at 4: the bracket under the figure, as the leaderboard's.
    expect(page.headlines.find((h) => h.id === "capacity-rate")).toMatchObject({
      value: "2 req/s",
      note: "[2, 4), ladder",
    });
    const rates = page.sections[0]?.tables[0]?.rows.map((r) => r.cells[0]?.text);
    expect(rates).toEqual(["1.00", "2.00", "4.00"]);
    expect(page.lastRun?.blocks[0]?.table.columns[0]?.head).toBe("offered req/s");
  });
});

describe("the model page model", () => {
  it("puts each loop's routes apart, each with its axis's figures", () => {
    const modelKey = targetModelKey(closed);
    expect(targetModelKey(open)).toBe(modelKey);
    const page = modelPage(index, { modelKey });
    expect(page.routeCount).toBe(2);
    const [closedPart, openPart] = page.kinds;
    expect(page.kinds.map((k) => k.kind)).toEqual(["closed", "open"]);
    expect(ids(closedPart?.sections ?? [])).toEqual(["model-aggregate", "model-perstream", "model-tradeoff"]);
    expect(tables(closedPart?.sections ?? [])).toEqual(["model-tradeoff-numbers"]);
    expect(closedPart?.levels.map((l) => l.n)).toEqual([1, 2, 4]);
    expect(ids(openPart?.sections ?? [])).toEqual(["model-rate-latency", "model-rate-throughput"]);
    expect(tables(openPart?.sections ?? [])).toEqual(["model-rate-numbers"]);
    expect(openPart?.levels).toEqual([]);
    // The open route's invalid rate is said under its charts.
    for (const f of openPart?.sections.flatMap((s) => s.figures) ?? []) expect(f.caption).toContain("4 req/s");
  });
});
