/** The page models and the site index without a build: what `/` ranks, and that a bad index is refused where it is wrong. */
import { indexEntryFor } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { describe, expect, it } from "vitest";
import { historyPoint, isOpenLoop, type TargetView } from "../src/lib/site-data.ts";
import { parseSiteIndex, type SiteIndex } from "../src/lib/site-index.ts";
import { leaderboardPage } from "../src/page-models/leaderboard.ts";
import { openLoopRun } from "./fixture.ts";

const NOW = "2026-11-02T00:00:00.000Z";

function view(id: string, doc: ReturnType<typeof syntheticRun>): TargetView {
  const entry = indexEntryFor(`runs/${id}/0.json`, doc);
  const { samples: _s, ...details } = doc;
  return {
    id,
    scenario: doc.scenario,
    label: id,
    model: "m",
    simulated: true,
    latest: entry,
    details: { ...details, key: entry.key },
    history: [historyPoint(entry)],
    standing: standingOf(id, [entry], { now: NOW, scenario: doc.scenario }),
    openLoop: isOpenLoop(details),
    promptTokens: null,
  };
}

const run = (id: string, scenario = "chat") =>
  syntheticRun({
    targetId: id,
    scenario,
    runId: `${id}-0`,
    startedAt: new Date(Date.parse(NOW) - 3_600_000).toISOString(),
    singleStreamTokensPerSecond: 100,
    ttftMs: 200,
    saturationStreams: 4,
    concurrency: [1, 2, 4],
  });
const closedView = (id: string) => view(id, run(id));
const openView = (id: string) => view(id, openLoopRun(run(id), [1, 2, 4], [true, true, false]));

function index(series: TargetView[]): SiteIndex {
  return {
    generatedAt: NOW,
    series,
    scenarios: [...new Set(series.map((v) => v.scenario))],
    charts: {},
    prefill: {},
    modelCharts: {},
    compareTradeoff: {},
    alerts: [],
    downloads: [],
    runDocuments: { count: series.length, bytes: 0 },
    subscribeUrl: null,
    methodologyHtml: "",
  };
}

/** The text of a ranking's cells of one kind, by row. */
const cellsOf = (table: ReturnType<typeof leaderboardPage>["rankings"][number], column: string) => {
  const at = table.columns.findIndex((c) => c.heading === column);
  return table.groups.flatMap((g) => g.rows.map((r) => r.cells[at]));
};

describe("the leaderboard page model", () => {
  it("leads with single-stream and concurrent figures for every closed-loop target, an open loop beside them in a section of its own", () => {
    const page = leaderboardPage(index([closedView("a"), closedView("b"), openView("o")]), "chat", "");
    expect(page.rankings.map((t) => t.axis)).toEqual(["concurrency", "rate"]);
    const [closed, open] = page.rankings as [(typeof page.rankings)[0], (typeof page.rankings)[0]];
    expect(closed.groups.flatMap((g) => g.rows.map((r) => r.id)).sort()).toEqual(["a", "b"]);
    for (const cell of cellsOf(closed, "single-stream tok/s"))
      expect(cell).toMatchObject({ kind: "estimate", estimate: { median: expect.any(Number) } });
    for (const cell of cellsOf(closed, "at N"))
      expect(cell).toMatchObject({ kind: "number", value: expect.any(Number) });
    expect(open.groups.flatMap((g) => g.rows.map((r) => r.id))).toEqual(["o"]);
    expect(page.title).toContain("one user and many at once");
  });

  it("leads with the capacity table where every target runs an open loop", () => {
    const page = leaderboardPage(index([openView("o")]), "chat", "s/chat/");
    expect(page.rankings.map((t) => t.axis)).toEqual(["rate"]);
    expect(page.title).toContain("requests/s");
    expect(page.root).toBe("../../");
  });

  it("still shows the closed-loop table, empty, before any run", () => {
    const page = leaderboardPage(index([]), "chat", "");
    expect(page.rankings.map((t) => [t.axis, t.groups.length])).toEqual([["concurrency", 0]]);
  });
});

describe("the site index", () => {
  it("reads back what the build writes", () => {
    const written = index([closedView("a"), openView("o")]);
    expect(parseSiteIndex(JSON.parse(JSON.stringify(written))).series.map((v) => v.id)).toEqual(["a", "o"]);
  });

  it("refuses a shape the pages do not expect, naming where", () => {
    const bad = JSON.parse(JSON.stringify(index([closedView("a")])));
    bad.series[0].standing = null;
    delete bad.runDocuments;
    expect(() => parseSiteIndex(bad, "site-data.json")).toThrow(/site-data\.json.*series\.0\.standing.*runDocuments/s);
  });
});
