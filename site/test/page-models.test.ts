/** The page models and the site index without a build: what `/` ranks, and that a bad index is refused where it is wrong. */
import { indexEntryFor } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { describe, expect, it } from "vitest";
import { targetCharts } from "../src/build/charts.ts";
import { historyPoint, type TargetView, viewKey } from "../src/lib/site-data.ts";
import { parseSiteIndex, type SiteIndex } from "../src/lib/site-index.ts";
import { alertsPage } from "../src/page-models/alerts.ts";
import { leaderboardPage } from "../src/page-models/leaderboard.ts";
import { modelPage } from "../src/page-models/model.ts";
import { targetPage } from "../src/page-models/target.ts";
import { conversationRun, NO_SCHEDULE, openLoopRun } from "./fixture.ts";

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
    promptTokens: null,
    sameModel: null,
    toolCalls: null,
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

/** A conversation run: each level's turns with TTFT growing by `growth` per turn, and the cache verdict given. */
const conversationOf = (id: string, growth: number, verdict: "reported" | "no_cache_seen") =>
  conversationRun(run(id, "conversation"), { growth, verdict });
const openView = (id: string) => view(id, openLoopRun(run(id), [1, 2, 4], [true, true, false]));

function index(series: TargetView[]): SiteIndex {
  return {
    generatedAt: NOW,
    series,
    scenarios: [...new Set(series.map((v) => v.scenario))],
    seriesDir: null,
    seriesFile: null,
    only: null,
    charts: {},
    prefill: {},
    modelCharts: {},
    compareTradeoff: {},
    alerts: [],
    downloads: [],
    modelKeys: [],
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
    expect(page.rankings.map((t) => t.kind)).toEqual(["closed", "open"]);
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
    expect(page.rankings.map((t) => t.kind)).toEqual(["open"]);
    expect(page.title).toContain("requests/s");
    expect(page.root).toBe("../../");
  });

  it("still shows the closed-loop table, empty, before any run", () => {
    const page = leaderboardPage(index([]), "chat", "");
    expect(page.rankings.map((t) => [t.kind, t.groups.length])).toEqual([["closed", 0]]);
  });
});

describe("a conversation scenario", () => {
  const cached = view("cached", conversationOf("cached", 1, "reported"));
  const uncached = view("uncached", conversationOf("uncached", 2, "no_cache_seen"));
  const page = leaderboardPage(index([uncached, cached]), "conversation", "");

  it("ranks routes by their later turns' TTFT, lower first, at the highest level both rank", () => {
    expect(page.rankings.map((t) => t.id)).toEqual(["conversation-leaderboard"]);
    const table = page.rankings[0] as (typeof page.rankings)[0];
    expect(table.groups.map((g) => g.rows[0]?.id)).toEqual(["cached", "uncached"]);
    expect(cellsOf(table, "at N")).toEqual([
      { kind: "number", value: 4, digits: 0 },
      { kind: "number", value: 4, digits: 0 },
    ]);
    expect(cellsOf(table, "prompt cache")).toEqual([
      { kind: "text", text: "reported" },
      { kind: "text", text: "no prompt cache seen" },
    ]);
    const ttft = cellsOf(table, "later turns TTFT p50 ms") as { estimate: { median: number } }[];
    expect(
      (ttft[1] as { estimate: { median: number } }).estimate.median /
        (ttft[0] as { estimate: { median: number } }).estimate.median,
    ).toBeCloseTo(2 ** 1.5, 6);
  });
});

describe("a conversation's target page", () => {
  it("draws TTFT and cached share by turn, and says what the cache did beside the numbers", async () => {
    const uncached = view("uncached", conversationOf("uncached", 2, "no_cache_seen"));
    const site = { ...index([uncached]), charts: { [viewKey(uncached)]: await targetCharts(uncached) } };
    const page = targetPage(parseSiteIndex(JSON.parse(JSON.stringify(site))), { id: "uncached" });
    const turns = page.sections.find((s) => s.id === "turns");
    expect(turns?.figures[0]?.svg).toContain("turn of the conversation");
    const table = turns?.tables[0];
    // Three levels of three turns each, every turn's row.
    expect(table?.rows).toHaveLength(9);
    expect(table?.caption).toContain("no prompt cache seen");
  });
});

describe("a trace replay", () => {
  /** The synthetic run's three levels as a trace replayed at x1, x2 and x4. */
  function traceRun(id: string, ttftScale: number) {
    const doc = run(id, "trace");
    return {
      ...doc,
      workload: { ...doc.workload, arrival: { mode: "trace", file: "t.jsonl", format: "mooncake" } },
      trace: {
        name: "t.jsonl",
        format: "mooncake" as const,
        sha256: "0".repeat(64),
        start: 0,
        limit: null,
        requests: 40,
        durationSeconds: 12,
        skipped: 0,
        blockSize: 512,
        inputTokens: 40_000,
        outputTokens: 4_000,
        reusablePromptTokenShare: 0.587,
      },
      levels: doc.levels.map((l, i) => ({
        ...l,
        load: { kind: "trace" as const, speedup: 2 ** i },
        ttftMs: { ...l.ttftMs, p95: (l.ttftMs.p95 ?? 100) * ttftScale },
        closed: null,
        trace: { ...NO_SCHEDULE, reusablePromptTokenShare: 0.587 },
        cachedPromptTokenShare: 0.5,
      })),
    };
  }
  const fast = view("fast", traceRun("fast", 1));
  const slow = view("slow", traceRun("slow", 3));

  it("ranks by TTFT p95 at the trace's own pace, lower first, with what the trace allowed from a cache and what the route reported", () => {
    const page = leaderboardPage(index([slow, fast]), "trace", "");
    expect(page.rankings.map((t) => [t.kind, t.id])).toEqual([["trace", "trace-leaderboard"]]);
    const table = page.rankings[0] as (typeof page.rankings)[0];
    expect(table.groups.map((g) => g.rows[0]?.id)).toEqual(["fast", "slow"]);
    expect(cellsOf(table, "at speedup")[0]).toMatchObject({ value: 1 });
    expect((cellsOf(table, "reusable %")[0] as { value: number }).value).toBeCloseTo(58.7, 9);
    expect(cellsOf(table, "cached %")[0]).toMatchObject({ value: 50 });
  });

  it("draws latency against the speedup on its target page, with both shares among its headlines", async () => {
    const site = { ...index([fast]), charts: { [viewKey(fast)]: await targetCharts(fast) } };
    const page = targetPage(parseSiteIndex(JSON.parse(JSON.stringify(site))), { id: "fast" });
    const section = page.sections.find((s) => s.id === "speedup");
    expect(section?.figures.map((f) => f.id)).toEqual(["speedup-latency", "speedup-throughput"]);
    expect(section?.figures[0]?.svg).toContain("speedup of the replayed trace");
    expect(page.headlines.find((h) => h.id === "reusable-share")?.value).toBe("59 %");
    expect(page.headlines.find((h) => h.id === "cached-share")?.value).toBe("50 %");
    expect(page.title).toContain("replaying t.jsonl");
  });
});

describe("same model?", () => {
  const verdict = (v: "same" | "differs", cause: "no_difference" | "distribution" | "reference") => ({
    reference: "a",
    verdict: v,
    pValue: v === "differs" ? 0.0005 : 0.42,
    reason: `${cause} in words`,
    samples: 100,
    cause,
    rawPValue: v === "differs" ? 0.00025 : 0.42,
    referenceSamples: 100,
    runId: "r",
    referenceRunId: "ra",
  });
  /** Three routes of one model. */
  const route = (id: string, sameModel: ReturnType<typeof verdict>): TargetView => {
    const v = closedView(id);
    return { ...v, latest: { ...v.latest, modelKey: "m" }, sameModel };
  };
  const reference = route("a", verdict("same", "reference"));
  const twin = route("b", verdict("same", "no_difference"));
  const quantized = route("c", verdict("differs", "distribution"));

  it("marks a route that differs beside its speed on the leaderboard, and notes the others", () => {
    const page = leaderboardPage(index([reference, twin, quantized]), "chat", "");
    const cells = cellsOf(page.rankings[0] as (typeof page.rankings)[0], "target") as {
      target: { label: string; sameModel: { badge: string | null; note: string | null } | null };
    }[];
    const byLabel = Object.fromEntries(cells.map((c) => [c.target.label, c.target.sameModel]));
    expect(byLabel.c).toMatchObject({ badge: "differs from the reference", note: null });
    expect(byLabel.b).toMatchObject({ badge: null, note: "no difference from a detected" });
    expect(byLabel.a).toMatchObject({ badge: null, note: "the model's reference route" });
  });

  it("tables each route's verdict, p-value and completions on the model page", () => {
    const page = modelPage(index([reference, twin, quantized]), { modelKey: "m" });
    expect(page.sameModel?.rows.map((r) => [r.data?.["data-target"], r.cells[1]?.text, r.cells[2]?.text])).toEqual([
      ["a", "reference", "0.420"],
      ["b", "no difference detected", "0.420"],
      ["c", "differs", "< 0.001"],
    ]);
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

describe("the alerts page of a tool-call regression", () => {
  it("names its kind in words and gives each fallen share from its standing interval to the run's count", () => {
    const alert = {
      id: "0123456789abcdef",
      targetId: "t",
      scenario: "chat",
      label: "Route",
      kind: "tool_calls_regression" as const,
      state: "open" as const,
      severity: "warning" as const,
      metrics: [],
      changes: [],
      served: null,
      toolCalls: {
        suite: "tools-v1",
        measures: [
          {
            measure: "argumentsValid" as const,
            before: { median: 0.97, low: 0.95, high: 0.98, n: 12 },
            after: { successes: 30, trials: 60, share: 0.5, low: 0.377, high: 0.623 },
          },
        ],
      },
      changedAt: NOW,
      openedAt: NOW,
      resolvedAt: null,
      updatedAt: NOW,
      runIds: ["r12"],
      title: "Route: Tool calls got worse: schema-valid arguments 50 % (below 95 %-98 % over 12 runs)",
    };
    const page = alertsPage({ ...index([]), alerts: [alert] });
    expect(page.alerts[0]?.kindWords).toBe("tool calls regression");
    expect(page.alerts[0]?.toolCallLines).toEqual([
      "schema-valid arguments: 97 % (95 %-98 %, 12 runs) → 50 % (37.7 %-62.3 %, 30 of 60)",
    ]);
  });
});
