/**
 * @module The trace replay: a recorded trace's requests sent at their own times (divided by a
 * speedup), each with its own prompt and answer lengths, prompts sharing the prefixes the trace
 * recorded. Its levels are speedups (x1: as recorded); it is ranked by TTFT p95 at the trace's own
 * pace, beside what the trace allowed from a prompt cache and what the route reported cached.
 */
import { loadPosition, loadWords, sameLoad } from "@kneeboard/core/run";
import type { TargetTable } from "../lib/compare.ts";
import { fmt, pct } from "../lib/format.ts";
import {
  type RankedRow,
  type RankingColumns,
  type RankingWords,
  rankedLowerFirst,
  rankingTable,
  routesTable,
  viewNotes,
} from "../lib/ranking-table.ts";
import { percent, type RankingContext, type RankingTable, type RoutesTable } from "../lib/rankings.ts";
import { simulatedLabel } from "../lib/share.ts";
import type { TargetView } from "../lib/site-data.ts";
import { num, text } from "../lib/table.ts";
import {
  curvesFigure,
  latencyFigure,
  type ModelContext,
  noTables,
  overlayFigure,
  type SectionDef,
  type TargetContext,
} from "../lib/target-charts.ts";
import type { KindView, RoutesContext } from "./view.ts";

/** A route's trace-replay row: its view, the standing's lowest and highest ranked speedups, the latest run at the lowest. */
interface TraceRow {
  v: TargetView;
  first: TargetView["standing"]["levels"][number] | undefined;
  latestFirst: TargetView["latest"]["levels"][number] | undefined;
  fastest: TargetView["standing"]["levels"][number] | undefined;
}

/** Views ranked by TTFT p95 at their lowest ranked speedup (the trace's own pace or nearest it), lower first. */
function traceRows(views: readonly TargetView[]): (TraceRow & RankedRow)[] {
  const rows = views.map((v): TraceRow => {
    const ranked = v.standing.levels
      .filter((l) => l.ranked)
      .sort((a, b) => loadPosition(a.load) - loadPosition(b.load));
    const first = ranked[0];
    const latestFirst = first ? v.latest.levels.find((l) => sameLoad(l.load, first.load)) : undefined;
    return { v, first, latestFirst, fastest: ranked.at(-1) };
  });
  return rankedLowerFirst(rows, (r) => r.first?.ttftP95Ms ?? null);
}

/** A trace replay's ranking columns, on the leaderboard and a model page alike. */
const COLUMNS: RankingColumns<TraceRow & RankedRow> = {
  rankTitle: "1 + targets whose TTFT p95 interval lies wholly below; = marks a shared rank",
  notes: viewNotes,
  figures: [
    {
      heading: "TTFT p95 ms",
      type: "num",
      sorted: true,
      title: "time to first token p95 at the lowest speedup",
      cell: (r) => ({ kind: "estimate", estimate: r.first?.ttftP95Ms ?? null, digits: 0, tooltip: true }),
    },
    {
      heading: "at speedup",
      type: "num",
      title: "the speedup of those figures (1: as recorded)",
      cell: (r) => ({ kind: "number", value: r.first ? loadPosition(r.first.load) : null, digits: 2 }),
    },
    {
      heading: "per-stream tok/s",
      type: "num",
      title: "per-stream output tok/s (p50) there",
      cell: (r) => ({
        kind: "estimate",
        estimate: r.first?.perStreamOutputTokensPerSecondP50 ?? null,
        digits: 1,
        tooltip: false,
      }),
    },
    {
      heading: "reusable %",
      type: "num",
      title: "prompt tokens the trace allows from a cache, latest run",
      cell: (r) => ({ kind: "number", value: percent(r.latestFirst?.reusablePromptTokenShare), digits: 0 }),
    },
    {
      heading: "cached %",
      type: "num",
      title: "prompt tokens the route reported cached, latest run",
      cell: (r) => ({ kind: "number", value: percent(r.latestFirst?.cachedPromptTokenShare), digits: 0 }),
    },
    {
      heading: "fastest valid",
      type: "num",
      title: "the highest speedup valid in most runs",
      cell: (r) => ({ kind: "number", value: r.fastest ? loadPosition(r.fastest.load) : null, digits: 2 }),
    },
  ],
};

/**
 * Trace replays: the same recorded traffic sent at each speedup. Ranked by TTFT p95 at the lowest
 * speedup (the trace's own pace or nearest it), lower first, over the standing's runs; beside it what
 * the trace allowed from a prompt cache and what the route reported cached, and the fastest speedup
 * still valid.
 */
function ranking(views: readonly TargetView[], ctx: RankingContext): RankingTable {
  const { windowHours, maxRuns } = ctx.window;
  const words: RankingWords = {
    kind: "trace",
    id: "trace-leaderboard",
    heading: `LLM routes replaying recorded traffic${ctx.named ? ` (${ctx.scenario})` : ""}`,
    sectionHeading: `Replayed traffic${ctx.named ? ` (${ctx.scenario})` : ""}`,
    anchor: "trace",
    lead: "A recorded trace sent as it was recorded, each request at its own time with its own prompt and answer lengths, then the same traffic faster. Requests that shared a prompt prefix in the trace share it here, so a route's prompt cache sees the reuse the trace recorded. Ranked by TTFT p95 at the trace's own pace, lower first.",
    label: `Leaderboard of scenario ${ctx.scenario}, one row per target, ranked by time to first token p95 of the replayed trace`,
    caption: [
      `TTFT p95 and per-stream tok/s are medians over the target's valid runs of the last ${windowHours} hours (at most ${maxRuns} runs), the interval bounding each in brackets (`,
      "), at the lowest speedup valid in most runs. Routes whose intervals overlap share a rank (=2). Reusable: the share of prompt tokens a perfect prefix cache could serve, from the trace's hash_ids; cached: the share the route reported cached (latest run). Fastest: the highest speedup valid in most runs.",
    ],
    empty: "No runs yet.",
    footnote: "Each speedup's TTFT and end-to-end percentiles, with both shares, are on each target's page.",
    levelLinks: [],
  };
  return rankingTable(words, COLUMNS, traceRows(views), { grouped: false, ctx });
}

const LEVEL = {
  head: "speedup",
  cell: (x: number) => `x${fmt(x, x % 1 === 0 ? 0 : 2)}`,
  inFlight: "in flight mean",
};

/** A view's levels in order of speedup, the first (the trace's own pace or nearest it) first. */
const bySpeedup = (view: TargetView) =>
  [...view.latest.levels].sort((a, b) => loadPosition(a.load) - loadPosition(b.load));

/** A trace replay's headline: the trace, and TTFT p95 at its own pace. */
function traceHeadline(target: TargetView): string {
  const first = bySpeedup(target)[0];
  const label = simulatedLabel(target.label, target.simulated);
  return `${label}: replaying ${target.details?.trace?.name ?? "a trace"}${
    first?.ttftP95Ms != null ? `, TTFT p95 ${fmt(first.ttftP95Ms)} ms at ${loadWords(first.load)}` : ""
  }`;
}

/** A trace replay's page description: the trace, and its figures at the recorded pace. */
function description(target: TargetView): string {
  const trace = target.details?.trace;
  const first = [...target.latest.levels].sort((a, b) => a.level - b.level)[0];
  const figures = first
    ? ` At ${loadWords(first.load)}: TTFT p95 ${fmt(first.ttftP95Ms)} ms, e2e p95 ${fmt(first.e2eP95Ms)} ms; the trace allows ${first.reusablePromptTokenShare === null ? "—" : `${fmt(first.reusablePromptTokenShare * 100)} %`} of prompt tokens from a cache, the route reported ${first.cachedPromptTokenShare === null ? "none" : `${fmt(first.cachedPromptTokenShare * 100)} %`} cached.`
    : "";
  return `${simulatedLabel(target.label, target.simulated)} replaying ${trace ? `the trace ${trace.name} (${trace.requests} requests)` : "a trace"}, scenario ${target.scenario}.${figures} Measured ${target.latest.startedAt.slice(0, 10)}.`;
}

/** A trace replay's target page headline figures: the trace, both cache shares, TTFT and e2e p95 at its own pace. */
function headlines({ view }: TargetContext) {
  const s = view.latest.summary;
  const first = bySpeedup(view)[0];
  const trace = view.details?.trace ?? null;
  const at = first ? ` at ${loadWords(first.load)}` : "";
  return [
    ...(trace
      ? [
          {
            label: "trace",
            value: trace.name,
            note: `${trace.format}, ${fmt(trace.requests)} requests over ${fmt(trace.durationSeconds)} s`,
          },
        ]
      : []),
    {
      label: `reusable prompt tokens${at}`,
      id: "reusable-share",
      title:
        "prompt tokens of leading hash_ids blocks already sent earlier in the replay: what a perfect prefix cache could serve",
      value: pct(first?.reusablePromptTokenShare ?? null, 0),
      note: "what the trace allows from a cache",
    },
    {
      label: `reported cached${at}`,
      id: "cached-share",
      title: "cached prompt tokens the route reported (usage.prompt_tokens_details.cached_tokens or its kin)",
      value: pct(first?.cachedPromptTokenShare ?? null, 0),
      note: "what the route says it served from one",
    },
    { label: `TTFT p95${at}`, value: first?.ttftP95Ms != null ? `${fmt(first.ttftP95Ms)} ms` : "—" },
    { label: `e2e p95${at}`, value: first?.e2eP95Ms != null ? `${fmt(first.e2eP95Ms)} ms` : "—" },
    {
      label: "peak aggregate tok/s (last run)",
      value: fmt(s.peak?.aggregateOutputTokensPerSecond),
      ...(s.peak ? { note: `at ${loadWords(s.peak.load)}` } : {}),
    },
    { label: "errors / 429s (last run)", value: `${pct(s.errorRate)} / ${pct(s.rateLimitRate)}` },
  ];
}

const TARGET_SECTIONS: readonly SectionDef<TargetContext>[] = [
  {
    id: "speedup",
    heading: "The trace replayed faster, latest run",
    figures: [
      latencyFigure({
        id: "speedup-latency",
        title: "latency against speedup",
        caption:
          "TTFT and end-to-end latency p50 (circles, solid), p95 (squares, dashed) and p99 (triangles, dotted), in ms on a log axis, against the speedup of the replayed trace (x1: as recorded), one panel above the other. Invalid speedups are left out.",
        empty: "Nothing to draw: the latest run has no valid speedup; its latencies are in the tables below.",
      }),
      curvesFigure(
        {
          id: "speedup-throughput",
          title: "aggregate and goodput tok/s against speedup",
          caption:
            "Aggregate output tok/s (circles) and goodput, the tok/s of requests that each met the SLO (squares), against the speedup of the replayed trace; y axis from zero. Invalid speedups are left out.",
          empty: "Nothing to draw: the latest run has no valid speedup; its figures are in the tables below.",
        },
        () => null,
      ),
    ],
    // Each speedup's figures are the page's tables of the last run, level by level.
    tables: noTables,
  },
];

const MODEL_SECTIONS: readonly SectionDef<ModelContext>[] = [
  {
    id: "model-speedup",
    heading: "The trace replayed faster, latest runs",
    figures: [
      overlayFigure({
        id: "model-speedup-latency",
        title: "latency against speedup",
        measures: ["ttftP95", "e2eP50"],
        seriesName: "route",
        caption:
          "Time to first token p95 (top) and end-to-end latency p50 (bottom) of each route, in ms, against the speedup of the replayed trace (latest runs); each route has its own colour and marker shape. Invalid speedups are left out.",
        empty: "Nothing to draw: no route's latest run has a valid speedup; the table below has their figures.",
      }),
    ],
    tables: ({ routes }) => [
      {
        id: "model-speedup-numbers",
        label: "The charts' numbers: each speedup of each route",
        caption: "Per route and speedup, latest runs: the charts' numbers, valid or not",
        columns: [
          { head: "route", class: "text" },
          { head: LEVEL.head },
          { head: "TTFT p95 ms" },
          { head: "e2e p50 ms" },
          { head: "aggregate tok/s" },
          { head: "valid", class: "text" },
        ],
        rows: routes.flatMap((t) =>
          bySpeedup(t).map((l) => ({
            data: { "data-target": t.id },
            cells: [
              text(t.label),
              num(LEVEL.cell(loadPosition(l.load))),
              num(fmt(l.ttftP95Ms)),
              num(fmt(l.e2eP50Ms)),
              num(fmt(l.aggregateOutputTokensPerSecond)),
              text(l.valid ? "yes" : "no"),
            ],
          })),
        ),
      },
    ],
  },
];

/** A model's trace-replay routes, ranked as the leaderboard ranks them: TTFT p95 at the trace's own pace, lower first. */
function routes(views: TargetView[], ctx: RoutesContext): RoutesTable {
  const table = {
    id: "model-trace-routes",
    label: "Routes ranked by time to first token p95 of the replayed trace",
    ...ctx,
  };
  return routesTable(table, COLUMNS, traceRows(views));
}

function numbers(targets: TargetView[], href: (id: string) => string): TargetTable {
  return {
    label: "Each target's replay at the trace's own pace",
    caption: null,
    columns: ["at speedup", "TTFT p95 ms", "e2e p95 ms", "peak aggregate tok/s"],
    rows: targets.map((t) => {
      const first = bySpeedup(t)[0];
      return {
        id: t.id,
        label: t.label,
        href: href(t.id),
        cells: [
          { value: first ? loadPosition(first.load) : null, digits: 2 },
          { value: first?.ttftP95Ms, digits: 0 },
          { value: first?.e2eP95Ms, digits: 0 },
          { value: t.latest.summary.peak?.aggregateOutputTokensPerSecond, digits: 0 },
        ],
      };
    }),
  };
}

export const trace: KindView = {
  axis: "speedup",
  level: LEVEL,
  run: { head: "peak aggregate tok/s", cell: (h) => fmt(h.peakAggregateOutputTokensPerSecond) },
  headline: traceHeadline,
  title: (view) => `${simulatedLabel(view.label, view.simulated)}: replaying ${view.details?.trace?.name ?? "a trace"}`,
  description,
  headlines,
  scenarioNote: null,
  board: {
    ranking,
    title: (scenario) => `LLM throughput leaderboard: scenario ${scenario}`,
    description: (targets, scenario) =>
      `${targets.length} LLM ${targets.length === 1 ? "endpoint" : "endpoints"} in scenario ${scenario}, replaying recorded traffic, ranked by TTFT p95 at the trace's own pace.`,
  },
  target: TARGET_SECTIONS,
  model: {
    heading: "Routes: the replayed trace",
    note: "The same recorded traffic sent to each route, at its own pace and faster: their curves against the speedup are overlaid below.",
    routes,
    sections: MODEL_SECTIONS,
  },
  compare: {
    title: "Compare LLM routes replaying a trace",
    loadNote: ", against the speedup of a replayed trace (x1: as recorded)",
    description: (targets, endpoints, inScenario) =>
      `Latency and goodput against the speedup of a replayed trace of ${endpoints}${inScenario}, overlaid. ${targets
        .slice(0, 3)
        .map(traceHeadline)
        .join("; ")}.`,
    charts: [
      {
        measure: "ttftP95",
        caption:
          "Time to first token p95 of the picked targets against the speedup of the replayed trace, ms on a log axis; each target has its own colour and marker shape.",
      },
      {
        measure: "goodput",
        caption:
          "Goodput tok/s (the output of requests that each met the SLO) of the picked targets against the speedup of the replayed trace, y axis from zero.",
      },
    ],
    numbers,
    tradeoff: false,
  },
  atN: false,
  csv: (load) =>
    load.kind === "trace"
      ? { concurrency: null, ratePerSecond: null, burstiness: null, speedup: load.speedup }
      : { concurrency: null, ratePerSecond: null, burstiness: null, speedup: null },
  knee: () => null,
  capacityBracket: () => null,
};
