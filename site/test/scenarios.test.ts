/** Scenarios on the site without a browser: their order, open-loop rankings and charts against the offered rate, the prefill curve, the downloads. */
import { rmSync } from "node:fs";
import { indexEntryFor } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { describe, expect, it } from "vitest";
import { indexJson, indexJsonView, runsCsv, standingCsv } from "../src/build/downloads.ts";
import { scenarioNotes, viewKind } from "../src/kinds/index.ts";
import { capacityEstimate, open as openKind, rateRows } from "../src/kinds/open.ts";
import {
  latencySpec,
  levelPoints,
  overlaySpec,
  PROMPT_TOKENS_TITLE,
  prefillSpec,
  RATE_TITLE,
  throughputCurvesSpec,
} from "../src/lib/charts/index.ts";
import { leaderboardRows } from "../src/lib/leaderboard.ts";
import { prefillPoints } from "../src/lib/prefill.ts";
import { modelPath, targetPath } from "../src/lib/scenarios.ts";
import {
  historyPoint,
  loadSiteData,
  promptTokensOf,
  scenarioOrder,
  type TargetView,
  targetCounts,
  viewsOf,
} from "../src/lib/site-data.ts";
import { renderSvg } from "../src/lib/svg.ts";
import { CHAT_OPEN, fixtureStore, OPEN_LOOP, openLoopRun, RAG, withPrompt } from "./fixture.ts";

const NOW = "2026-11-02T00:00:00.000Z";

/** A view of hand-built runs of one (target, scenario), as the loader makes it. */
function view(
  id: string,
  scenario: string,
  docs: ReturnType<typeof syntheticRun>[],
  promptTokens: number | null,
): TargetView {
  const entries = docs.map((d, i) => indexEntryFor(`runs/${id}/${scenario}-${i}.json`, d));
  const latest = entries.at(-1) as (typeof entries)[number];
  const { samples: _s, ...details } = docs.at(-1) as ReturnType<typeof syntheticRun>;
  return {
    id,
    scenario,
    label: id,
    model: "m",
    simulated: true,
    latest,
    details: { ...details, key: latest.key },
    history: entries.map(historyPoint),
    standing: standingOf(id, entries, { now: NOW, scenario }),
    promptTokens,
    sameModel: null,
    toolCalls: null,
  };
}

const closed = (id: string, scenario: string, ttftMs: number, i = 0) =>
  syntheticRun({
    targetId: id,
    scenario,
    runId: `${id}-${scenario}-${i}`,
    startedAt: new Date(Date.parse(NOW) - (i + 1) * 3_600_000).toISOString(),
    singleStreamTokensPerSecond: 100,
    ttftMs,
    saturationStreams: 4,
    concurrency: [1, 2, 4],
  });

const open = (id: string, i: number, meets: boolean[]) =>
  openLoopRun(
    syntheticRun({
      targetId: id,
      scenario: "poisson",
      runId: `${id}-poisson-${i}`,
      startedAt: new Date(Date.parse(NOW) - (i + 1) * 3_600_000).toISOString(),
      singleStreamTokensPerSecond: 100,
      ttftMs: 200,
      saturationStreams: 4,
      concurrency: [1, 2, 3, 4],
    }),
    [0.5, 1, 2, 4],
    meets,
  );

// biome-ignore lint/suspicious/noExplicitAny: the specs are checked structurally
type Loose = any;

describe("scenario order and paths", () => {
  it("counts targets, and the simulated ones, by id over every scenario", () => {
    const chat = view("a", "chat", [closed("a", "chat", 200)], 150);
    const rag = view("a", "rag", [closed("a", "rag", 900)], 4000);
    // A measured (not simulated) target that ran only a later scenario.
    const measured = { ...view("b", "rag", [closed("b", "rag", 900)], 4000), simulated: false };
    expect(targetCounts([chat, rag])).toEqual({ targets: 1, simulated: 1 });
    expect(targetCounts([chat, rag, measured])).toEqual({ targets: 2, simulated: 1 });
  });

  it("puts chat first, then scenarios in the order their first run started", () => {
    const at = (scenario: string, startedAt: string) => ({ scenario, startedAt });
    expect(
      scenarioOrder([
        at("rag", "2026-01-02"),
        at("long-context", "2026-01-01"),
        at("chat", "2026-01-03"),
        at("rag", "2026-01-01T12"),
      ]),
    ).toEqual(["chat", "long-context", "rag"]);
    expect(scenarioOrder([at("rag", "2026-01-02"), at("b", "2026-01-03")])).toEqual(["rag", "b"]);
  });

  it("puts a target's and a model's first scenario at their root, the others under s/<scenario>/", () => {
    const series = [
      view("a", "rag", [closed("a", "rag", 900)], 4000),
      view("a", "chat", [closed("a", "chat", 200)], 150),
    ];
    const scenarios = ["chat", "rag"];
    expect(targetPath(series, scenarios, "a", "chat")).toBe("targets/a/");
    expect(targetPath(series, scenarios, "a", "rag")).toBe("targets/a/s/rag/");
    expect(modelPath(series, scenarios, "m", "rag")).toBe("models/m/s/rag/");
    // A target with only rag runs has rag at its root.
    expect(targetPath(series.slice(0, 1), scenarios, "a", "rag")).toBe("targets/a/");
  });
});

describe("open-loop rankings", () => {
  const strong = view(
    "strong",
    "poisson",
    [0, 1, 2].map((i) => open("strong", i, [true, true, true, false])),
    150,
  );
  const weak = view(
    "weak",
    "poisson",
    [0, 1, 2].map((i) => open("weak", i, [true, false, false, false])),
    150,
  );
  const none = view(
    "none",
    "poisson",
    [0, 1].map((i) => open("none", i, [false, false, false, false])),
    150,
  );

  it("reads a level's rate from the run document, never its number as a concurrency", () => {
    expect(viewKind(strong)).toBe("open");
    const points = levelPoints(strong.details?.levels ?? []);
    expect(points.map((p) => [p.axis, p.position])).toEqual([
      ["rate", 0.5],
      ["rate", 1],
      ["rate", 2],
      ["rate", 4],
    ]);
    expect(points[0]?.achievedRatePerSecond).toBeCloseTo(0.49);
  });

  it("ranks by capacity in requests/s over the standing's runs, a run meeting no rate counting as none", () => {
    expect(capacityEstimate(strong)).toMatchObject({ median: 2, n: 3 });
    expect(capacityEstimate(none)).toBeNull();
    const rows = rateRows([weak, none, strong]);
    expect(rows.map((r) => [r.id, r.rankLabel])).toEqual([
      ["strong", "1"],
      ["weak", "2"],
      ["none", "—"],
    ]);
    const top = rows[0] as (typeof rows)[number];
    expect(top.achievedAtCapacity).toBeCloseTo(1.96);
    expect(top.peakRatePerSecond).not.toBeNull();
    expect(top.trend).toEqual([2, 2, 2]);
  });

  /** Each row's capacity cell on the open-loop leaderboard, by target. */
  function capacityCells(views: TargetView[]) {
    const table = openKind.board.ranking(views, {
      scenario: "poisson",
      named: true,
      targetHref: (id: string) => `targets/${id}/`,
      modelHref: (m: string) => `models/${m}/`,
      window: { windowHours: 72, maxRuns: 24 },
      section: false,
    });
    const at = table.columns.findIndex((c) => c.heading === "capacity req/s");
    return new Map(table.groups.flatMap((g) => g.rows).map((r) => [r.id, r.cells[at]]));
  }

  it("brackets a ladder's capacity in requests/s to the next rate, sorted on its lower end", () => {
    const top = view(
      "top",
      "poisson",
      [0, 1].map((i) => open("top", i, [true, true, true, true])),
      150,
    );
    const cells = capacityCells([weak, none, strong, top]);
    expect(cells.get("strong")).toMatchObject({ kind: "capacity", value: 2, text: "2.00", bracket: "[2, 4), ladder" });
    expect(cells.get("weak")).toMatchObject({ value: 0.5, text: "0.50", bracket: "[0.5, 1), ladder" });
    // Its top rate met the SLO: nothing above 4 req/s was measured, which a bare "4" would hide.
    expect(cells.get("top")).toMatchObject({ value: 4, text: "4.00", bracket: "not measured above 4, ladder" });
    // No rate met: below the lowest, sorted under every route that met one.
    expect(cells.get("none")).toMatchObject({ value: 0, text: "below 0.5", bracket: "[0, 0.5), ladder" });
    expect(rateRows([strong])[0]?.capacityBracket).toEqual({ kind: "ladder", lo: 2, hi: 4, confidence: null });
  });

  it("publishes in index.json the bracket each leaderboard shows, in requests/s or users", () => {
    expect(indexJsonView(strong).capacityBracket).toEqual({ kind: "ladder", lo: 2, hi: 4, confidence: null });
    expect(indexJsonView(none).capacityBracket).toEqual({ kind: "ladder", lo: null, hi: 0.5, confidence: null });
    // A closed loop's, off its standing: N = 4 met at the top of 1, 2, 4.
    const users = view("users", "chat", [closed("users", "chat", 200)], 150);
    expect(indexJsonView(users).capacityBracket).toEqual({ kind: "ladder", lo: 4, hi: null, confidence: null });
  });

  it("marks a searched capacity with its bracket at its confidence", () => {
    const searched = (i: number) => {
      const d = open("searched", i, [true, true, true, false]);
      return {
        ...d,
        summary: {
          ...d.summary,
          capacityBracket: { kind: "searched" as const, lo: 2, hi: 2.5, confidence: 0.9 },
          search: {
            axis: "rate" as const,
            from: 0.5,
            to: 4,
            resolution: 0.2,
            confidence: 0.9,
            capacity: { value: 2, lo: 2, hi: 2.5, status: "found" as const },
            knee: { value: null, lo: null, hi: null, status: "not_reached" as const },
            stop: { reason: "resolved" as const, detail: "capacity bracket within 20 %" },
            requests: 90,
            promptTokens: 0,
            outputTokens: 0,
            ladderRequests: 120,
          },
        },
      };
    };
    const cells = capacityCells([view("searched", "poisson", [0, 1].map(searched), 150)]);
    expect(cells.get("searched")).toMatchObject({ value: 2, text: "2.00", bracket: "[2, 2.5] at 90 %, searched" });
    expect((cells.get("searched") as { title: string }).title).toContain("in [2, 2.5]");
  });

  it("draws latency and throughput against the offered rate, with no concurrency axis", async () => {
    const points = levelPoints(strong.details?.levels ?? []);
    for (const spec of [
      latencySpec({ title: "l", axis: "rate", levels: points }),
      throughputCurvesSpec({ title: "t", axis: "rate", levels: points, knee: null }),
    ] as Loose[]) {
      const text = JSON.stringify(spec);
      expect(text).toContain(RATE_TITLE);
      expect(text).not.toContain("concurrency");
      const svg = await renderSvg(spec);
      expect(svg).toContain("offered rate (requests/s)");
    }
    const curves: Loose = throughputCurvesSpec({ title: "t", axis: "rate", levels: points, knee: null });
    const throughput = curves.layer[0];
    expect(throughput.encoding.x.axis.values).toEqual([0.5, 1, 2, 4]);
    expect(throughput.encoding.y.scale.zero).toBe(true);
    expect(new Set(throughput.data.values.map((v: Loose) => v.measure))).toEqual(new Set(["aggregate", "goodput"]));
    const latency: Loose = latencySpec({ title: "l", axis: "rate", levels: points });
    expect(latency.vconcat).toHaveLength(2);
    expect(latency.vconcat[0].data.values.filter((v: Loose) => v.percentile === "p95")).toHaveLength(4);
  });
});

describe("an open loop's knee and peak", () => {
  // Past 1 stream the synthetic server saturates: level by level (0.5, 1, 2, 4 requests/s) aggregate barely rises.
  const flat = (i: number) =>
    openLoopRun(
      syntheticRun({
        targetId: "flat",
        scenario: "poisson",
        runId: `flat-poisson-${i}`,
        startedAt: new Date(Date.parse(NOW) - (i + 1) * 3_600_000).toISOString(),
        singleStreamTokensPerSecond: 100,
        ttftMs: 200,
        saturationStreams: 1,
        concurrency: [1, 2, 3, 4],
      }),
      [0.5, 1, 2, 4],
      [true, true, false, false],
    );
  const flatView = view("flat", "poisson", [0, 1, 2].map(flat), 150);
  // Aggregate rises under 15 % past the first rate and peaks at the top one.
  const KNEE_RATE = 0.5;
  const PEAK_RATE = 4;

  it("are in requests/s: no concurrency knee, peak or capacity N anywhere the site reads them", () => {
    const st = flatView.standing;
    expect(st.kneeConcurrency).toBeNull();
    expect(st.kneeRequestsPerSecond).toBe(KNEE_RATE);
    expect(st.peak?.load).toEqual({ kind: "open", arrival: "poisson", ratePerSecond: PEAK_RATE });
    expect(flatView.latest.summary.kneeConcurrency).toBeNull();
    expect(flatView.latest.summary.kneeRequestsPerSecond).toBe(KNEE_RATE);
    const [row] = rateRows([flatView]);
    expect(row?.peakRatePerSecond).toBe(PEAK_RATE);
    const [lb] = leaderboardRows([flatView]);
    expect([lb?.kneeConcurrency, lb?.peakConcurrency, lb?.capacityConcurrency]).toEqual([null, null, null]);
  });

  it("mark the knee's and the peak's rate in standing.csv", () => {
    const [header, ...rows] = standingCsv([flatView.standing]).trim().split("\n");
    const cols = (header ?? "").split(",");
    const at = (name: string) => rows.filter((r) => r.split(",")[cols.indexOf(name)] === "true");
    const rateOf = (r: string) => r.split(",")[cols.indexOf("ratePerSecond")];
    expect(rows.map(rateOf)).toEqual(["0.5", "1", "2", "4"]);
    expect(at("isKnee").map(rateOf)).toEqual([String(KNEE_RATE)]);
    expect(at("isPeak").map(rateOf)).toEqual([String(PEAK_RATE)]);
  });

  it("name each level's rate in runs.csv, and leave it empty for a closed loop", () => {
    const [header, ...rows] = runsCsv([
      indexEntryFor("runs/flat/0.json", flat(0)),
      indexEntryFor("runs/c/0.json", closed("c", "chat", 200)),
    ])
      .trim()
      .split("\n");
    const cols = (header ?? "").split(",");
    const cell = (r: string, name: string) => r.split(",")[cols.indexOf(name)];
    expect(rows.filter((r) => cell(r, "targetId") === "flat").map((r) => cell(r, "ratePerSecond"))).toEqual([
      "0.5",
      "1",
      "2",
      "4",
    ]);
    const closedRates = rows.filter((r) => cell(r, "targetId") === "c").map((r) => cell(r, "ratePerSecond"));
    expect(closedRates.length).toBeGreaterThan(0);
    expect(new Set(closedRates)).toEqual(new Set([""]));
  });
});

describe("compare charts of an open loop", () => {
  const a = view("a", "poisson", [open("a", 0, [true, true, true, false])], 150);
  const b = view("b", "poisson", [open("b", 0, [true, true, false, false])], 150);
  const series = [a, b].map((v) => ({ targetId: v.id, label: v.label, levels: levelPoints(v.details?.levels ?? []) }));

  it("overlays targets against the offered rate, never concurrency: tok/s from zero, TTFT on a log axis", async () => {
    for (const measure of ["aggregate", "goodput", "ttftP95"] as const) {
      const spec: Loose = overlaySpec({ axis: "rate", series, measures: [measure] });
      expect(spec.encoding.x).toMatchObject({ field: "rate", title: RATE_TITLE });
      expect(spec.encoding.x.axis.values).toEqual([0.5, 1, 2, 4]);
      expect(JSON.stringify(spec)).not.toContain("concurrency");
      expect(new Set(spec.data.values.map((r: Loose) => r.targetId))).toEqual(new Set(["a", "b"]));
      expect(spec.encoding.color.field).toBe("target");
      expect(spec.encoding.shape.field).toBe("target");
      if (measure === "ttftP95") expect(spec.encoding.y.scale.type).toBe("log");
      else expect(spec.encoding.y.scale.zero).toBe(true);
    }
    const goodput: Loose = overlaySpec({ axis: "rate", series, measures: ["goodput"] });
    const points = series[0]?.levels ?? [];
    expect(goodput.data.values.filter((r: Loose) => r.targetId === "a").map((r: Loose) => r.value)).toEqual(
      points.filter((p) => p.valid).map((p) => p.goodputOutputTokensPerSecond),
    );
    expect(await renderSvg(goodput)).toContain(RATE_TITLE);
  });
});

describe("the prefill curve", () => {
  it("takes TTFT p50 at level 1 against prompt tokens over two or more closed-loop scenarios", async () => {
    const chat = view("a", "chat", [closed("a", "chat", 200)], 150);
    const rag = view("a", "rag", [closed("a", "rag", 1200)], 4000);
    const poisson = view("a", "poisson", [open("a", 0, [true, true, true, true])], 150);
    expect(prefillPoints([chat])).toEqual([]);
    expect(prefillPoints([chat, poisson])).toEqual([]);
    const points = prefillPoints([rag, poisson, chat]);
    expect(points.map((p) => [p.scenario, p.promptTokens])).toEqual([
      ["chat", 150],
      ["rag", 4000],
    ]);
    expect((points[1]?.ttftP50Ms ?? 0) > (points[0]?.ttftP50Ms ?? 0)).toBe(true);
    const spec: Loose = prefillSpec({ title: "p", points });
    expect(spec.layer[0].encoding.x).toMatchObject({ field: "promptTokens", title: PROMPT_TOKENS_TITLE });
    expect(spec.layer[0].encoding.y.scale.zero).toBe(true);
    expect(await renderSvg(spec)).toContain(PROMPT_TOKENS_TITLE);
  });

  it("reads prompt tokens from the samples' median, else the workload", () => {
    const doc = withPrompt(closed("a", "rag", 900), 4000);
    expect(promptTokensOf(doc)).toBe(4000);
    expect(promptTokensOf({ ...doc, samples: [] })).toBe(4000);
    expect(promptTokensOf({ workload: {}, samples: [] })).toBeNull();
  });
});

describe("the loader and downloads, on the site fixture", () => {
  it("orders the fixture's scenarios, marks the open loop, and carries the scenario into every download", async () => {
    const fixture = await fixtureStore(2);
    try {
      const data = await loadSiteData({ store: fixture.store, index: fixture.index, now: NOW, warn: () => {} });
      expect(data.scenarios).toEqual(["chat", RAG.scenario, OPEN_LOOP.scenario]);
      expect(viewsOf(data.series, RAG.scenario).map((v) => v.id)).toEqual([...RAG.targets].sort());
      const [openView] = viewsOf(data.series, OPEN_LOOP.scenario);
      expect(openView).toMatchObject({ id: OPEN_LOOP.id });
      expect(openView && viewKind(openView)).toBe("open");
      expect(openView?.latest.summary.capacityRequestsPerSecond).toBe(2);
      expect(viewsOf(data.series, RAG.scenario).map((v) => v.promptTokens)).toEqual([4000, 4000]);
      // chat holds closed loops and one open loop side by side.
      expect(
        viewsOf(data.series, "chat")
          .filter((v) => viewKind(v) === "open")
          .map((v) => v.id),
      ).toEqual([CHAT_OPEN.id]);
      // Only a scenario of open loops alone is marked "request rates" in the scenario links.
      expect(scenarioNotes(data.series, data.scenarios)).toEqual({ [OPEN_LOOP.scenario]: "request rates" });
      // Every scenario's runs: 2 chat runs of 4 targets and of the open loop in chat, 2 rag runs of 2, 2 open-loop runs.
      expect(data.allEntries).toHaveLength(8 + CHAT_OPEN.runs + 4 + 2);

      const index = JSON.parse(indexJson(data));
      // Version 2: levels name their load, as run documents v2 do.
      expect(index.schemaVersion).toBe(2);
      for (const t of index.targets) expect(["closed", "open"]).toContain(t.latest.levels[0].load.kind);
      expect(index.scenarios).toEqual(data.scenarios);
      expect(index.targets.every((t: Loose) => t.scenario === "chat")).toBe(true);
      expect(index.series.map((t: Loose) => `${t.id}/${t.scenario}`).sort()).toEqual(
        ["fast-small/rag", "slow-large/rag", `${OPEN_LOOP.id}/${OPEN_LOOP.scenario}`].sort(),
      );
      const runs = runsCsv(
        data.allEntries,
        data.series.map((v) => v.standing),
      )
        .trim()
        .split("\n");
      expect(runs[0]?.split(",").slice(0, 2)).toEqual(["targetId", "scenario"]);
      expect(runs.some((l) => l.startsWith("fast-small,rag,"))).toBe(true);
      expect(runs.some((l) => l.startsWith(`${OPEN_LOOP.id},${OPEN_LOOP.scenario},`))).toBe(true);
      // inStanding is per (target, scenario): a rag run's rows enter the rag standing.
      const inStanding = runs[0]?.split(",").indexOf("inStanding") ?? -1;
      expect(
        runs.filter((l) => l.startsWith("fast-small,rag,") && l.split(",")[inStanding] === "true").length,
      ).toBeGreaterThan(0);
      const standing = standingCsv(data.series.map((v) => v.standing))
        .trim()
        .split("\n");
      expect(standing[0]?.split(",").slice(0, 2)).toEqual(["targetId", "scenario"]);
      expect(standing.some((l) => l.startsWith("slow-large,rag,"))).toBe(true);
    } finally {
      rmSync(fixture.root, { recursive: true, force: true });
    }
  });
});
