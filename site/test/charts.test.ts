/** The chart spec builders on fixture runs: series, axes, knee marker, and what the SVG renderer makes of them. */
import { indexEntryFor } from "@kneeboard/core/run-index";
import { standingOf } from "@kneeboard/core/standing";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { describe, expect, it } from "vitest";
import {
  historySpec,
  type LevelPoint,
  latencySpec,
  levelPoints,
  overlaySpec,
  prefillSpec,
  standingCurvesSpec,
  throughputCurvesSpec,
  timeAxis,
  tradeoffSpec,
} from "../src/lib/charts/index.ts";
import { KNEE_COLORS, kneeLayer } from "../src/lib/charts/knee.ts";
import { LEGEND_LINE_CHARS, SERIES_LEGEND } from "../src/lib/charts/shared.ts";
import { niceMax, placeLabels } from "../src/lib/charts/tradeoff.ts";
import { historyPoint } from "../src/lib/site-data.ts";
import { renderSvg } from "../src/lib/svg.ts";

const run = (targetId: string, startedAt: string, single: number) =>
  indexEntryFor(
    `runs/${targetId}/x.json`,
    syntheticRun({ targetId, startedAt, singleStreamTokensPerSecond: single, ttftMs: 200, saturationStreams: 8 }),
  );
const entry = run("t1", "2026-11-01T00:00:00Z", 100);

// biome-ignore lint/suspicious/noExplicitAny: the specs are checked structurally, whatever vega-lite's union types say
type Loose = any;

describe("throughputCurvesSpec", () => {
  const spec: Loose = throughputCurvesSpec({
    title: "t",
    axis: "concurrency",
    levels: levelPoints(entry.levels),
    knee: entry.summary.kneeConcurrency,
  });

  it("has an aggregate and a per-stream series with the level's numbers, on independent y axes", () => {
    const [aggregate, perStream] = spec.layer;
    expect(aggregate.data.values.map((r: Loose) => r.value)).toEqual(
      levelPoints(entry.levels).map((l) => l.aggregateOutputTokensPerSecond),
    );
    expect(perStream.data.values.map((r: Loose) => r.value)).toEqual(
      levelPoints(entry.levels).map((l) => l.perStreamOutputTokensPerSecondP50),
    );
    expect(spec.resolve.scale.y).toBe("independent");
    expect(aggregate.encoding.y.title).toContain("aggregate");
    expect(perStream.encoding.y.title).toContain("per-stream");
  });

  it("puts concurrency on a log-2 axis with ticks at the measured levels", () => {
    const x = spec.layer[0].encoding.x;
    expect(x.scale).toEqual({ type: "log", base: 2 });
    expect(x.axis.values).toEqual([1, 2, 4, 8, 16, 32]);
  });

  it("marks the knee, and no knee when there is none", async () => {
    expect(entry.summary.kneeConcurrency).not.toBeNull();
    const knee = spec.layer[2];
    expect(knee.data.values[0].concurrency).toBe(entry.summary.kneeConcurrency);
    expect(knee.layer[0].mark.type).toBe("rule");
    const none: Loose = throughputCurvesSpec({
      title: "t",
      axis: "concurrency",
      levels: levelPoints(entry.levels),
      knee: null,
    });
    expect(none.layer).toHaveLength(2);
    expect(await renderSvg(spec)).toContain(`knee: ${entry.summary.kneeConcurrency}`);
  });

  it("leaves out levels with no figure instead of plotting zero", () => {
    const levels = levelPoints(entry.levels).map((l, i) =>
      i === 5 ? { ...l, aggregateOutputTokensPerSecond: null } : l,
    );
    const s: Loose = throughputCurvesSpec({ title: "t", axis: "concurrency", levels, knee: null });
    expect(s.layer[0].data.values).toHaveLength(5);
  });
});

describe("kneeLayer", () => {
  const knee = entry.summary.kneeConcurrency;
  const x = (spec: Loose) => spec.layer[0].encoding.x;

  it("is a dashed rule at the knee on the chart's x axis, labelled with it, and nothing without a knee", () => {
    const axis = x(throughputCurvesSpec({ title: "t", axis: "concurrency", levels: levelPoints(entry.levels), knee }));
    const [layer]: Loose[] = kneeLayer(knee, axis);
    expect(layer.data.values).toEqual([{ concurrency: knee, label: `knee: ${knee}` }]);
    expect(layer.layer.map((l: Loose) => l.mark.type)).toEqual(["rule", "text"]);
    expect(layer.layer[0].mark.strokeDash).toEqual([4, 4]);
    expect(layer.layer[0].encoding.x).toBe(axis);
    expect(layer.layer[1].encoding.text.field).toBe("label");
    expect(kneeLayer(null, axis)).toEqual([]);
  });

  it("is the one knee marker of both curve charts against concurrency", () => {
    const curves: Loose = throughputCurvesSpec({
      title: "t",
      axis: "concurrency",
      levels: levelPoints(entry.levels),
      knee,
    });
    expect(curves.layer[2]).toEqual(kneeLayer(knee, x(curves), KNEE_COLORS)[0]);
    const standing = standingOf("t1", [entry, run("t1", "2026-11-01T06:00:00Z", 100)], { now: "2026-11-02T00:00:00Z" });
    expect(standing.kneeConcurrency).not.toBeNull();
    const median: Loose = standingCurvesSpec({ title: "t", levels: standing.levels, knee: standing.kneeConcurrency });
    const medianX = median.layer[0].layer[0].encoding.x;
    expect(median.layer[2]).toEqual(kneeLayer(standing.kneeConcurrency, medianX, { rule: "#555", label: "#555" })[0]);
  });
});

describe("latency, history and compare specs", () => {
  it("latency has TTFT and e2e panels with p50/p95/p99 per level", () => {
    const spec: Loose = latencySpec({ title: "l", axis: "concurrency", levels: levelPoints(entry.levels) });
    expect(spec.vconcat.map((p: Loose) => p.title)).toEqual(["time to first token", "end-to-end"]);
    expect(spec.vconcat[0].data.values).toHaveLength(levelPoints(entry.levels).length * 3);
    expect(spec.vconcat[0].data.values[0]).toEqual({
      concurrency: 1,
      percentile: "p50",
      value: levelPoints(entry.levels)[0]?.ttftP50Ms,
    });
  });

  it("history plots every run over UTC time", () => {
    const points = [run("t1", "2026-11-01T00:00:00Z", 100), run("t1", "2026-11-02T00:00:00Z", 80)].map(historyPoint);
    const spec: Loose = historySpec({ title: "h", points });
    const series = spec.vconcat[0].layer[0];
    expect(series.data.values.map((r: Loose) => r.startedAt)).toEqual(points.map((p) => p.startedAt));
    expect(series.layer[0].encoding.x.scale.type).toBe("utc");
  });

  it("history: a few percent between runs stays a few percent (axis from zero), points on straight segments", async () => {
    const points = [745, 740, 750].map((v, i) => historyPoint(run("t1", `2026-11-01T10:${45 + 5 * i}:00Z`, v)));
    const svg = await renderSvg(historySpec({ title: "h", points }));
    const lines = [...svg.matchAll(/aria-roledescription="line mark"[^>]* d="([^"]+)"/g)].map((m) => m[1]);
    expect(lines).toHaveLength(2);
    for (const d of lines) expect(d).toMatch(/^M[\d.,-]+L[\d.,-]+L[\d.,-]+$/);
    const marks = [...svg.matchAll(/<g class="mark-symbol role-mark[^>]*>(.*?)<\/g>/g)].map(
      (m) => m[1]?.match(/<path /g)?.length,
    );
    expect(marks).toEqual([3, 3]);
    // The single-stream panel's lowest y label is 0, not 740.
    expect(svg).toMatch(/role-axis-label[\s\S]*?>0<\/text>/);
    expect(JSON.stringify(historySpec({ title: "h", points }))).not.toContain("monotone");
  });

  it("history draws no panel for a figure no run has (an open loop's single stream): no axis from 0 to 0", async () => {
    const points = [100, 90, 110].map((v, i) => ({
      ...historyPoint(run("t1", `2026-11-0${i + 1}T00:00:00Z`, v)),
      singleStreamOutputTokensPerSecond: null,
    }));
    const spec: Loose = historySpec({ title: "h", points });
    expect(spec.vconcat).toHaveLength(1);
    expect(spec.description).not.toContain("single-stream");
    const svg = await renderSvg(spec);
    expect(svg).not.toContain("NaN");
    expect(svg).not.toMatch(/values from 0\.?0* to 0\.?0*"/);
    expect(svg.match(/aria-roledescription="line mark"/g)).toHaveLength(1);
  });

  it("history draws a band when given one, and none otherwise", async () => {
    const points = [100, 90, 110].map((v, i) => historyPoint(run("t1", `2026-11-0${i + 1}T00:00:00Z`, v)));
    const band = [
      { startedAt: "2026-11-01T00:00:00Z", low: 85, high: 115 },
      { startedAt: "2026-11-03T00:00:00Z", low: 85, high: 115 },
    ];
    const withBand = await renderSvg(historySpec({ title: "h", points, bands: { singleStream: band } }));
    expect(withBand.match(/aria-roledescription="area mark"/g)).toHaveLength(1);
    expect(withBand).toContain('fill="var(--band)"');
    const without = await renderSvg(historySpec({ title: "h", points }));
    expect(without).not.toContain("area mark");
  });

  it("dates every time axis: the day over days, the day and time within a short span", () => {
    expect(timeAxis(["2026-11-01T10:45:00Z", "2026-11-01T10:55:00Z"]).axis.format).toBe("%Y-%m-%d %H:%M");
    expect(timeAxis(["2026-09-01T00:00:00Z", "2026-11-30T00:00:00Z"]).axis.format).toBe("%Y-%m-%d");
  });

  it("names each rendered chart and takes its colours from the page's CSS variables", async () => {
    const svg = await renderSvg(
      throughputCurvesSpec({ title: "curves <&>", axis: "concurrency", levels: levelPoints(entry.levels), knee: null }),
    );
    expect(svg).toMatch(/^<svg role="img" aria-label="curves &lt;&amp;&gt;" /);
    expect(svg).toContain("<desc>Aggregate output tokens per second");
    expect(svg).not.toMatch(/(fill|stroke)="#[0-9a-fA-F]{3,6}"/);
    expect(svg).toContain('stroke="var(--agg)"');
  });

  it("compare overlays targets colored by label, rows tagged with the target id", () => {
    const other = run("t2", "2026-11-01T00:00:00Z", 50);
    const spec: Loose = overlaySpec({
      axis: "concurrency",
      series: [
        { targetId: "t1", label: "one", levels: levelPoints(entry.levels) },
        { targetId: "t2", label: "two", levels: levelPoints(other.levels) },
      ],
      measures: ["aggregate"],
    });
    expect(new Set(spec.data.values.map((r: Loose) => r.targetId))).toEqual(new Set(["t1", "t2"]));
    expect(spec.encoding.color.field).toBe("target");
    expect(spec.encoding.shape.field).toBe("target");
    expect(spec.encoding.y.scale.zero).toBe(true);
    expect(spec.encoding.x.scale.type).toBe("log");
  });
});

describe("tradeoffSpec", () => {
  const other = run("t2", "2026-11-01T00:00:00Z", 40);
  const series = [
    { targetId: "t1", label: "one", levels: levelPoints(entry.levels) },
    { targetId: "t2", label: "two", levels: levelPoints(other.levels) },
  ];
  const spec: Loose = tradeoffSpec({ title: "t", axis: "concurrency", series });

  it("plots per-stream p50 (x) against aggregate (y), both from zero, one point per valid level and target", () => {
    const [line, text] = spec.layer;
    expect(line.encoding.x.field).toBe("perStream");
    expect(line.encoding.y.field).toBe("aggregate");
    expect(line.encoding.x.scale.zero).toBe(true);
    expect(line.encoding.y.scale.zero).toBe(true);
    expect(line.mark.interpolate).toBe("linear");
    // The line runs through the levels in order of concurrency, not of x.
    expect(line.encoding.order.field).toBe("concurrency");
    expect(text.mark.type).toBe("text");
    const rows = spec.data.values.filter((r: Loose) => r.targetId === "t1");
    expect(rows.map((r: Loose) => [r.perStream, r.aggregate])).toEqual(
      levelPoints(entry.levels).map((l) => [l.perStreamOutputTokensPerSecondP50, l.aggregateOutputTokensPerSecond]),
    );
    expect(spec.data.values).toHaveLength(levelPoints(entry.levels).length + levelPoints(other.levels).length);
  });

  it("tells targets apart by colour and by marker shape", () => {
    expect(spec.layer[0].encoding.color.field).toBe("target");
    expect(spec.layer[0].encoding.shape.field).toBe("target");
  });

  it("leaves invalid levels out", () => {
    const levels = levelPoints(entry.levels).map((l, i) => (i === 2 ? { ...l, valid: false } : l));
    const one: Loose = tradeoffSpec({
      title: "t",
      axis: "concurrency",
      series: [{ targetId: "t1", label: "one", levels }],
    });
    expect(one.data.values.map((r: Loose) => r.concurrency)).not.toContain(levelPoints(entry.levels)[2]?.position);
    expect(one.data.values).toHaveLength(levelPoints(entry.levels).length - 1);
  });

  it("renders each point's concurrency as a text mark", async () => {
    const svg = await renderSvg(spec);
    for (const l of levelPoints(entry.levels)) expect(svg).toContain(`>N=${l.position}<`);
  });
});

describe("labels that fit", () => {
  it("places labels of points on top of each other apart, and leaves out those with no room", () => {
    // Five routes' N=8 on the very same spot mid-plot: four placements, then none.
    const rows = Array.from({ length: 5 }, () => ({ perStream: 50, aggregate: 500, label: "N=8" }));
    const placed = placeLabels([{ perStream: 100, aggregate: 1000, label: "N=1" }, ...rows]).map((r) => r.placement);
    expect(placed.slice(1)).toEqual(["ne", "se", "nw", "sw", null]);
    // Points far apart keep the first placement; one at the plot's top right corner takes one that stays inside.
    const apart = placeLabels([
      { perStream: 25, aggregate: 250, label: "N=32" },
      { perStream: 75, aggregate: 750, label: "N=1" },
      { perStream: 100, aggregate: 1000, label: "N=2" },
    ]);
    expect(apart.map((r) => r.placement)).toEqual(["ne", "ne", "sw"]);
    expect([niceMax(1026), niceMax(157.4), niceMax(0)]).toEqual([1100, 160, 1]);
  });

  it("draws the two routes' labels at one spot once each, apart", async () => {
    const twin = [
      { targetId: "a", label: "a", levels: levelPoints(entry.levels) },
      { targetId: "b", label: "b", levels: levelPoints(entry.levels) },
    ];
    const spec: Loose = tradeoffSpec({ title: "t", axis: "concurrency", series: twin });
    const n8 = spec.data.values.filter((r: Loose) => r.label === "N=8");
    expect(n8).toHaveLength(2);
    expect(new Set(n8.map((r: Loose) => r.placement)).size).toBe(2);
  });

  it("shows a long legend name whole, wrapped at spaces, never cut with an ellipsis", async () => {
    const long = "Shared model through a gateway with a rather long route name → provider-x (simulated)";
    expect(SERIES_LEGEND.labelLimit).toBe(0);
    const svg = await renderSvg(
      overlaySpec({
        axis: "concurrency",
        series: [
          { targetId: "t1", label: long, levels: levelPoints(entry.levels) },
          { targetId: "t2", label: "short", levels: levelPoints(entry.levels) },
        ],
        measures: ["aggregate"],
      }),
    );
    expect(svg).not.toContain("…");
    const lines = [...svg.matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1] ?? "");
    expect(lines.filter((l) => long.includes(l) && l.length > 0).join(" ")).toBe(long);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(LEGEND_LINE_CHARS);
  });

  it("keeps every chart's text at 10 px or more when a 370 px phone column scales it down", async () => {
    // The same levels at offered rates 1, 2, 4...: an open loop's points.
    const points: LevelPoint[] = levelPoints(entry.levels).map((l, i) => ({
      ...l,
      axis: "rate",
      position: 2 ** i,
      achievedRatePerSecond: 2 ** i,
    }));
    const series = [{ targetId: "t1", label: "one", levels: levelPoints(entry.levels) }];
    const standing = standingOf("t1", [entry, run("t1", "2026-11-01T06:00:00Z", 100)], { now: "2026-11-02T00:00:00Z" });
    const specs = [
      standingCurvesSpec({ title: "t", levels: standing.levels, knee: standing.kneeConcurrency }),
      throughputCurvesSpec({
        title: "t",
        axis: "concurrency",
        levels: levelPoints(entry.levels),
        knee: entry.summary.kneeConcurrency,
      }),
      latencySpec({ title: "t", axis: "concurrency", levels: levelPoints(entry.levels) }),
      tradeoffSpec({ title: "t", axis: "concurrency", series }),
      overlaySpec({ axis: "concurrency", series, measures: ["perStream"] }),
      historySpec({ title: "t", points: [historyPoint(entry), historyPoint(run("t1", "2026-11-02T00:00:00Z", 90))] }),
      prefillSpec({
        title: "t",
        points: [
          { scenario: "chat", promptTokens: 200, ttftP50Ms: 100 },
          { scenario: "rag", promptTokens: 4000, ttftP50Ms: 600 },
        ],
      }),
      latencySpec({ title: "t", axis: "rate", levels: points }),
      throughputCurvesSpec({ title: "t", axis: "rate", levels: points, knee: null }),
      overlaySpec({
        title: "t",
        axis: "rate",
        series: [{ targetId: "t1", label: "one", levels: points }],
        measures: ["ttftP50", "e2eP50"],
        seriesName: "route",
      }),
    ];
    for (const [i, spec] of specs.entries()) {
      const svg = await renderSvg(spec);
      const width = Number(svg.match(/<svg[^>]* width="([\d.]+)"/)?.[1]);
      const sizes = [...svg.matchAll(/font-size="([\d.]+)px"/g)].map((m) => Number(m[1]));
      expect(sizes.length).toBeGreaterThan(0);
      expect(Math.min(...sizes) * Math.min(1, 370 / width), `spec ${i}, ${width} px wide`).toBeGreaterThanOrEqual(9.5);
    }
  });
});

/** An open-loop level at a rate, its figures proportional to the rate. */
const rate = (ratePerSecond: number, valid: boolean, ttftP50Ms: number): LevelPoint => ({
  axis: "rate",
  position: ratePerSecond,
  probeOrder: null,
  achievedRatePerSecond: ratePerSecond,
  inFlightMean: null,
  inFlightMax: null,
  scheduleLagP50Ms: null,
  scheduleLagP99Ms: null,
  aggregateOutputTokensPerSecond: 100 * ratePerSecond,
  goodputOutputTokensPerSecond: 90 * ratePerSecond,
  perStreamOutputTokensPerSecondP50: 50,
  ttftP50Ms,
  ttftP95Ms: null,
  ttftP99Ms: null,
  e2eP50Ms: 2 * ttftP50Ms,
  e2eP95Ms: null,
  e2eP99Ms: null,
  valid,
});

describe("overlaySpec of several measures (a model's routes against the offered rate)", () => {
  const spec: Loose = overlaySpec({
    title: "t",
    axis: "rate",
    series: [
      { targetId: "a", label: "route a", levels: [rate(0.5, true, 100), rate(1, true, 120), rate(2, true, 300)] },
      { targetId: "b", label: "route b", levels: [rate(0.5, true, 200), rate(1, true, 260), rate(2, false, 9000)] },
    ],
    measures: ["ttftP50", "goodput"],
    seriesName: "route",
  });

  it("draws one series per route against the offered rate, in every panel, y from zero", () => {
    expect(spec.vconcat.map((p: Loose) => p.title)).toEqual([
      "time to first token, p50",
      "goodput (requests meeting the SLO)",
    ]);
    for (const panel of spec.vconcat) {
      expect(panel.encoding.x.field).toBe("rate");
      expect(panel.encoding.x.title).toBe("offered rate (requests/s)");
      expect(panel.encoding.y.scale.zero).toBe(true);
      expect(panel.encoding.color.field).toBe("route");
      expect(panel.encoding.shape.field).toBe("route");
      expect(new Set(panel.data.values.map((r: Loose) => r.route))).toEqual(new Set(["route a", "route b"]));
    }
    expect(spec.vconcat[0].encoding.x.axis.values).toEqual([0.5, 1, 2]);
  });

  it("leaves invalid rates out", () => {
    const b = spec.vconcat[0].data.values.filter((r: Loose) => r.targetId === "b");
    expect(b.map((r: Loose) => r.rate)).toEqual([0.5, 1]);
    expect(spec.vconcat[0].data.values.map((r: Loose) => r.value)).not.toContain(9000);
  });
});

describe("the offered-rate axis", () => {
  /** The x axis's tick labels as drawn: the SVG's texts from the x axis's start to its title. */
  const rateLabels = async (rates: number[]) => {
    const svg = await renderSvg(
      throughputCurvesSpec({ title: "t", axis: "rate", levels: rates.map((r) => rate(r, true, 100)), knee: null }),
    );
    const axis = svg.slice(svg.indexOf('aria-label="X-axis'), svg.indexOf(">offered rate (requests/s)<"));
    return [...axis.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  };

  it("labels rates as people write them: 10, 20, 30 (never 1e+1), 0.5, and 1,000 with its comma", async () => {
    expect(await rateLabels([10, 20, 30])).toEqual(expect.arrayContaining(["10", "20", "30"]));
    expect(await rateLabels([0.5, 1, 2])).toEqual(expect.arrayContaining(["0.5", "1", "2"]));
    expect(await rateLabels([250, 500, 1000])).toEqual(expect.arrayContaining(["250", "500", "1,000"]));
    for (const labels of [await rateLabels([10, 20, 30]), await rateLabels([100, 200, 300])]) {
      expect(labels.join(" ")).not.toMatch(/e\+/);
    }
  });
});
