/**
 * @module The target page's model: everything `pages/targets/[id]/[...rest].astro` renders of one
 * (target, scenario), from the site index and the route's params. What differs by load axis (the
 * headline figures, the tables beside the figures, how a level is named) is data keyed by axis or by
 * the figure sections' ids (`target-charts.ts`), so a new load kind adds entries, not page markup.
 */
import {
  type CacheVerdict,
  concurrencyOf,
  type Load,
  type LoadAxis,
  loadAxis,
  loadPosition,
  loadWords,
  sameLoad,
} from "@kneeboard/core/run";
import type { Estimate } from "@kneeboard/core/standing";
import { estimateTitle, fmt, fmtEstimate, pct, rootFrom, when } from "../lib/format.ts";
import { costNote, targetModelKey, usd } from "../lib/models.ts";
import { fmtRate, rateOf } from "../lib/open-loop.ts";
import { modelPath, targetPath, targetScenarios } from "../lib/scenarios.ts";
import { rateDescription, targetDescription, targetTitle, traceDescription } from "../lib/share.ts";
import { type TargetView, viewAxis, viewKey } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";
import { viewPoints } from "../lib/view-points.ts";
import { type Headline, num, type PageSection, type Table, text } from "./table.ts";

/** The route's params: `targets/<id>/` (the target's first scenario) or `targets/<id>/s/<scenario>/`. */
export interface TargetParams {
  id: string;
  rest?: string | undefined;
}

/** Every target page's params: a target's first scenario at `targets/<id>/`, each other at `targets/<id>/s/<scenario>/`. */
export function targetPaths(index: SiteIndex): { params: TargetParams }[] {
  const { series, scenarios } = index;
  return series.map((target) => {
    const first = targetScenarios(series, scenarios, target.id)[0] === target.scenario;
    return { params: { id: target.id, rest: first ? undefined : `s/${target.scenario}` } };
  });
}

export interface TargetPage {
  title: string;
  description: string;
  path: string;
  root: string;
  /** The h1: the target's label, its scenario where that tells the page apart, and badges. */
  heading: { label: string; named: string; badges: { class: string; text: string }[] };
  modelKey: string;
  modelHref: string;
  /** The model as the target asks for it, where that differs from its key. */
  askedAs: string | null;
  id: string;
  lastMeasured: string;
  feedHref: string;
  scenarioNav: { scenarios: string[]; current: string; hrefs: Record<string, string>; openLoop: string[] };
  /** What the figures below are medians of; `howHref` links the methodology after it. */
  standingNote: { text: string; howHref: string | null };
  headlines: Headline[];
  /** The latest run's and the standing's figures, each with the tables of their numbers. */
  sections: PageSection[];
  /** The last readable run, level by level; null when no run document could be read. */
  lastRun: { note: string; runId: string; blocks: { heading: string | null; level: 2 | 3; table: Table }[] } | null;
  /** The prefill curve across the target's scenarios: on its first page only. */
  prefill: PageSection | null;
  history: PageSection;
}

/** How a page names a level of each axis. */
interface AxisWords {
  /** The level column's head. */
  head: string;
  /** A level's cell. */
  cell: (position: number) => string;
  /** The measuring client's in-flight column. */
  inFlight: string;
  /** The runs table's last figure. */
  run: { head: string; cell: (h: TargetView["history"][number]) => string };
  description: (t: TargetView) => string;
}

const AXIS_WORDS: Record<LoadAxis, AxisWords> = {
  concurrency: {
    head: "concurrency N",
    cell: (n) => String(n),
    inFlight: "achieved concurrency",
    run: { head: "knee", cell: (h) => (h.kneeConcurrency === null ? "—" : String(h.kneeConcurrency)) },
    description: targetDescription,
  },
  rate: {
    head: "offered req/s",
    cell: (r) => fmt(r, 2),
    inFlight: "in flight mean",
    run: { head: "capacity req/s", cell: (h) => fmt(h.capacityRequestsPerSecond, 2) },
    description: rateDescription,
  },
  speedup: {
    head: "speedup",
    cell: (x) => `x${fmt(x, x % 1 === 0 ? 0 : 2)}`,
    inFlight: "in flight mean",
    run: { head: "peak aggregate tok/s", cell: (h) => fmt(h.peakAggregateOutputTokensPerSecond) },
    description: traceDescription,
  },
};

interface Context {
  view: TargetView;
  axis: LoadAxis;
}

/** The headline figures of each axis. */
const HEADLINES: Record<LoadAxis, (c: Context) => Headline[]> = {
  speedup: ({ view }) => {
    const s = view.latest.summary;
    const levels = [...view.latest.levels].sort((a, b) => loadPosition(a.load) - loadPosition(b.load));
    const first = levels[0];
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
  },
  concurrency: ({ view }) => {
    const { standing } = view;
    const s = view.latest.summary;
    const single = standing.singleStream;
    const peak = standing.peak;
    return [
      {
        label: "single-stream tok/s (p50, N=1)",
        value: fmtEstimate(single?.outputTokensPerSecond, 1),
        title: estimateTitle(single?.outputTokensPerSecond),
      },
      {
        label: "single-stream TTFT p50",
        value: `${fmtEstimate(single?.ttftP50Ms)}${single?.ttftP50Ms ? " ms" : ""}`,
        title: estimateTitle(single?.ttftP50Ms),
      },
      {
        label: "peak aggregate tok/s",
        value: fmtEstimate(peak?.aggregateOutputTokensPerSecond),
        title: estimateTitle(peak?.aggregateOutputTokensPerSecond),
        ...(peak ? { note: `at ${loadWords(peak.load)}` } : {}),
      },
      {
        label: "per-stream tok/s at the peak",
        value: fmtEstimate(peak?.perStreamOutputTokensPerSecond, 1),
        title: estimateTitle(peak?.perStreamOutputTokensPerSecond),
      },
      {
        label: "knee",
        // No valid level stands (no median curve, so no peak): a knee is neither reached nor "not reached".
        value: String(standing.kneeConcurrency ?? (standing.saturated || peak === null ? "—" : "not reached")),
      },
      {
        label: "capacity at the SLO",
        value: standing.capacity ? `${concurrencyOf(standing.capacity.load)} users` : "—",
        title: `per-stream p50 ≥ ${standing.slo.minOutputTokensPerSecond} tok/s and TTFT p95 ≤ ${standing.slo.maxTtftMs} ms, on the medians`,
      },
      {
        label: "goodput peak (last run)",
        id: "goodput-peak",
        value: s.goodputPeak
          ? `${fmt(s.goodputPeak.goodputOutputTokensPerSecond)} tok/s at ${loadWords(s.goodputPeak.load)}`
          : "—",
      },
      { label: "scaling efficiency", value: pct(standing.scalingEfficiency, 0) },
      { label: "errors / 429s (last run)", value: `${pct(s.errorRate)} / ${pct(s.rateLimitRate)}` },
    ];
  },
  rate: ({ view }) => {
    const { standing } = view;
    const s = view.latest.summary;
    const capacity = s.capacityRequestsPerSecond ?? null;
    const peak = standing.peak;
    return [
      {
        label: "capacity at the SLO (last run)",
        id: "capacity-rate",
        value: fmtRate(capacity),
        title: `highest offered rate meeting per-stream p50 ≥ ${standing.slo.minOutputTokensPerSecond} tok/s and TTFT p95 ≤ ${standing.slo.maxTtftMs} ms`,
      },
      {
        label: "achieved there",
        value: fmtRate(viewPoints(view).find((p) => p.position === capacity)?.achievedRatePerSecond),
      },
      {
        label: "peak aggregate tok/s",
        value: fmtEstimate(peak?.aggregateOutputTokensPerSecond),
        title: estimateTitle(peak?.aggregateOutputTokensPerSecond),
        ...(peak ? { note: `at ${fmtRate(rateOf(peak))}` } : {}),
      },
      {
        label: "knee",
        id: "knee-rate",
        title: "the lowest offered rate after which no higher rate raises the median aggregate tok/s by more than 15 %",
        value:
          standing.kneeRequestsPerSecond != null
            ? fmtRate(standing.kneeRequestsPerSecond)
            : standing.kneeRequestsPerSecond === null && !standing.saturated && peak !== null
              ? "not reached"
              : "—",
      },
      {
        label: "goodput peak (last run)",
        id: "goodput-peak",
        value: s.goodputPeak
          ? `${fmt(s.goodputPeak.goodputOutputTokensPerSecond)} tok/s at ${fmtRate(rateOf(s.goodputPeak))}`
          : "—",
      },
      { label: "errors / 429s (last run)", value: `${pct(s.errorRate)} / ${pct(s.rateLimitRate)}` },
    ];
  },
};

/** A level's cell: its position, as its axis writes it. */
const levelCell = (load: Load) => num(AXIS_WORDS[loadAxis(load)].cell(loadPosition(load)));
/** A row's attribute naming its level on its axis (`data-concurrency="8"`, `data-rate="2"`). */
const at = (load: Load) => ({ [`data-${loadAxis(load)}`]: String(loadPosition(load)) });
const est = (e: Estimate | null | undefined, digits = 0) => num(fmtEstimate(e, digits), { title: estimateTitle(e) });

/** What a conversation level says of the route's prompt cache, in the words the pages use. */
export const CACHE_WORDS: Record<CacheVerdict, string> = {
  reported: "the route reports cached prompt tokens",
  no_cache_seen: "no prompt cache seen: later turns' TTFT grows with the history",
  not_reported: "cache not reported: later turns' TTFT stays flat, though no cached tokens are reported",
  undetermined: "too little to tell",
};

/** The tables beside each figure section, by the section's id (`target-charts.ts`). */
const SECTION_TABLES: Record<string, (c: Context) => Table[]> = {
  turns: ({ view }) => {
    const levels = view.latest.levels.filter((l) => l.conversation !== null);
    if (levels.length === 0) return [];
    const detail = (l: (typeof levels)[number]) =>
      view.details?.levels.find((d) => sameLoad(d.load, l.load))?.conversation?.cache.detail ?? null;
    return [
      {
        id: "turns-numbers",
        label: "TTFT and cached share by turn, per level of the latest run",
        caption: `By turn, latest run. The prompt cache: ${levels
          .map((l) => {
            const verdict = l.conversation?.cacheVerdict ?? "undetermined";
            const why = detail(l);
            // The level's own sentence where the run document has it, else the verdict in words.
            return `${loadWords(l.load)}: ${why ?? CACHE_WORDS[verdict]}`;
          })
          .join("; ")}.`,
        columns: [
          { head: AXIS_WORDS[loadAxis(levels[0]?.load ?? { kind: "closed", concurrency: 1 })].head },
          { head: "turn" },
          { head: "requests" },
          { head: "TTFT p50 ms" },
          { head: "TTFT p95 ms" },
          { head: "cached share" },
          { head: "valid", class: "text" },
        ],
        rows: levels.flatMap((l) =>
          (l.conversation?.byTurn ?? []).map((t) => ({
            data: { ...at(l.load), "data-turn": String(t.turn) },
            cells: [
              levelCell(l.load),
              num(String(t.turn)),
              num(fmt(t.n)),
              num(fmt(t.ttftP50Ms)),
              num(fmt(t.ttftP95Ms)),
              num(pct(t.cachedPromptTokenShare, 0)),
              text(l.valid ? "yes" : "no"),
            ],
          })),
        ),
      },
    ];
  },
  standing: ({ view }) => {
    const { standing } = view;
    const runs = standing.runIds.length;
    if (standing.levels.length === 0) return [];
    return [
      {
        id: "standing-levels",
        label: "Per level over recent runs",
        caption: "Per level: median (interval), over the runs in which the level was valid",
        columns: [
          { head: "concurrency" },
          { head: "valid runs" },
          { head: "aggregate tok/s" },
          { head: "per-stream tok/s p50" },
          { head: "TTFT p50 ms" },
          { head: "TTFT p95 ms" },
          { head: "goodput tok/s" },
          { head: "ranked", class: "text" },
        ],
        rows: standing.levels.map((l) => ({
          data: at(l.load),
          cells: [
            levelCell(l.load),
            num(`${l.validRuns} of ${runs}`),
            est(l.aggregateOutputTokensPerSecond),
            est(l.perStreamOutputTokensPerSecondP50, 1),
            est(l.ttftP50Ms),
            est(l.ttftP95Ms),
            est(l.goodputOutputTokensPerSecond),
            text(
              `${l.ranked ? "yes" : "no"}${l.invalidRuns > 0 ? ` (invalid in ${l.invalidRuns} of ${runs} runs: ${l.invalidReasons.join("; ")})` : ""}`,
            ),
          ],
        })),
      },
    ];
  },
  throughput: ({ view }) => [
    {
      id: "curve-numbers",
      label: "The numbers of the throughput chart",
      caption: "The numbers of the chart (latest run)",
      columns: ["concurrency", "aggregate tok/s", "per-stream tok/s p50", "TTFT p50 ms", "e2e p50 ms", "valid"].map(
        (head) => ({ head }),
      ),
      rows: view.latest.levels.map((l) => ({
        cells: [
          levelCell(l.load),
          num(fmt(l.aggregateOutputTokensPerSecond)),
          num(fmt(l.perStreamOutputTokensPerSecondP50, 1)),
          num(fmt(l.ttftP50Ms)),
          num(fmt(l.e2eP50Ms)),
          num(l.valid ? "yes" : "no"),
        ],
      })),
    },
  ],
  tradeoff: ({ view }) => [
    {
      id: "tradeoff-numbers",
      label: "The numbers of the trade-off chart, with goodput and cost",
      caption: "Per level, latest run: the chart's numbers, goodput and cost per million output tokens",
      columns: [
        { head: "concurrency" },
        { head: "per-stream tok/s p50" },
        { head: "aggregate tok/s" },
        { head: "goodput tok/s" },
        { head: "meets SLO", class: "text" },
        { head: "metered $/Mtok", class: "text" },
        { head: "declared $/Mtok", class: "text" },
      ],
      rows: view.latest.levels.map((l) => {
        const note = costNote(l.meteredUsdPerMillionOutputTokens, l.declaredUsdPerMillionOutputTokens);
        return {
          data: at(l.load),
          cells: [
            levelCell(l.load),
            num(fmt(l.perStreamOutputTokensPerSecondP50, 1)),
            num(fmt(l.aggregateOutputTokensPerSecond)),
            num(fmt(l.goodputOutputTokensPerSecond)),
            text(l.meetsSlo === null ? "—" : l.meetsSlo ? "yes" : "no"),
            text(usd(l.meteredUsdPerMillionOutputTokens), {
              class: "cost",
              ...(note ? { note, noteClass: "note cost-note" } : {}),
            }),
            text(usd(l.declaredUsdPerMillionOutputTokens)),
          ],
        };
      }),
    },
  ],
  rate: ({ view, axis }) => [
    {
      id: "rate-numbers",
      label: "Each offered rate of the latest run",
      caption:
        "Per offered rate, latest run: the rate achieved, requests in flight, how late sends left, and the charts' numbers",
      columns: [
        { head: AXIS_WORDS[axis].head },
        { head: "achieved req/s" },
        { head: "in flight mean" },
        { head: "in flight max" },
        { head: "send lag p99 ms" },
        { head: "aggregate tok/s" },
        { head: "goodput tok/s" },
        { head: "TTFT p50 ms" },
        { head: "TTFT p95 ms" },
        { head: "e2e p50 ms" },
        { head: "valid", class: "text" },
      ],
      rows: viewPoints(view).map((p) => ({
        cells: [
          num(AXIS_WORDS[axis].cell(p.position)),
          num(fmt(p.achievedRatePerSecond, 2)),
          num(fmt(p.inFlightMean, 1)),
          num(fmt(p.inFlightMax)),
          num(fmt(p.scheduleLagP99Ms, 1)),
          num(fmt(p.aggregateOutputTokensPerSecond)),
          num(fmt(p.goodputOutputTokensPerSecond)),
          num(fmt(p.ttftP50Ms)),
          num(fmt(p.ttftP95Ms)),
          num(fmt(p.e2eP50Ms)),
          text(p.valid ? "yes" : "no"),
        ],
      })),
    },
  ],
};

/** The target page of `params`, from the site index. */
export function targetPage(index: SiteIndex, params: TargetParams): TargetPage {
  const { series, scenarios } = index;
  const own = targetScenarios(series, scenarios, params.id);
  const scenario = params.rest?.startsWith("s/") ? params.rest.slice(2) : own[0];
  const view = series.find((v) => v.id === params.id && v.scenario === scenario);
  if (!view) throw new Error(`no target page for ${params.id}${params.rest ? `/${params.rest}` : ""}`);
  const first = own[0] === view.scenario;
  const axis = viewAxis(view);
  const words = AXIS_WORDS[axis];
  const c: Context = { view, axis };
  const path = targetPath(series, scenarios, view.id, view.scenario);
  const root = rootFrom(path);
  const scenarioHref = (s: string) => `${root}${targetPath(series, scenarios, view.id, s)}`;
  /** The scenario is named where it tells the page apart: the target has several, or its only one is not the site's first. */
  const nameScenario = own.length > 1 || view.scenario !== scenarios[0];
  const { latest, details, standing } = view;
  const s = latest.summary;
  const modelKey = targetModelKey(view);
  const figureSections = index.charts[viewKey(view)] ?? [];
  const toSection = (f: (typeof figureSections)[number]): PageSection => ({
    id: f.id,
    heading: f.heading,
    figures: f.figures,
    tables: SECTION_TABLES[f.id]?.(c) ?? [],
  });
  const runs = standing.runIds.length;
  const badges = [
    ...(view.simulated ? [{ class: "badge sim", text: "simulated" }] : []),
    ...(latest.status === "partial"
      ? [
          {
            class: "badge partial",
            text: `last run partial${latest.partialReason ? ` (${latest.partialReason})` : ""}`,
          },
        ]
      : []),
    ...(!s.valid ? [{ class: "badge invalid", text: "last run has invalid levels" }] : []),
  ];
  const prefill = first ? (index.prefill[view.id] ?? null) : null;
  const prefillViews = series.filter(
    (v) => v.id === view.id && viewAxis(v) === "concurrency" && v.promptTokens != null,
  );
  return {
    title: targetTitle(view, nameScenario),
    description: words.description(view),
    path,
    root,
    heading: { label: view.label, named: nameScenario ? ` (${view.scenario})` : "", badges },
    modelKey,
    modelHref: `${root}${modelPath(series, scenarios, modelKey, view.scenario)}`,
    askedAs: view.model !== modelKey ? view.model : null,
    id: view.id,
    lastMeasured: when(latest.startedAt),
    feedHref: `${root}feeds/${view.id}.xml`,
    scenarioNav: {
      scenarios: own,
      current: view.scenario,
      hrefs: Object.fromEntries(own.map((x) => [x, scenarioHref(x)])),
      openLoop: own.filter((x) => series.some((v) => v.id === view.id && v.scenario === x && viewAxis(v) === "rate")),
    },
    standingNote:
      runs === 0
        ? {
            text: "No valid run yet, so no figure below: each level of the latest run and why it is invalid are in the tables further down.",
            howHref: null,
          }
        : {
            text: `Figures below are medians over ${runs} valid run${runs === 1 ? "" : "s"}${
              standing.beyondWindow
                ? ` (none in the last ${standing.window.windowHours} hours: the latest valid run, ${standing.newestStartedAt ? when(standing.newestStartedAt) : ""}, stands in)`
                : standing.oldestStartedAt && standing.newestStartedAt
                  ? ` from ${when(standing.oldestStartedAt)} to ${when(standing.newestStartedAt)}`
                  : ""
            }, with the interval that bounds each median in brackets`,
            howHref: `${root}methodology/#over-runs`,
          },
    headlines: HEADLINES[axis](c),
    sections: figureSections.filter((f) => f.id !== "history").map(toSection),
    lastRun: details === null ? null : lastRun(view, details, words),
    prefill: prefill && {
      id: "prefill",
      heading: "Prefill: TTFT against prompt length",
      figures: [prefill],
      tables: [
        {
          id: "prefill-numbers",
          label: "The numbers of the prefill curve",
          columns: [{ head: "scenario", class: "text" }, { head: "prompt tokens" }, { head: "TTFT p50 ms at level 1" }],
          rows: prefillViews.map((v) => ({
            cells: [
              text(v.scenario, { href: scenarioHref(v.scenario) }),
              num(fmt(v.promptTokens)),
              num(fmt(v.details?.levels.find((l) => concurrencyOf(l.load) === 1)?.ttftMs.p50)),
            ],
          })),
        },
      ],
    },
    history: {
      id: "history",
      heading: "History",
      figures: figureSections.find((f) => f.id === "history")?.figures ?? [],
      tables: [
        {
          id: "runs",
          label: "Every run of this target",
          details: {
            summary: `All ${view.history.length} runs, newest first, with their run documents`,
            open: view.history.length <= 20,
          },
          columns: [
            { head: "started", class: "text" },
            { head: "status", class: "text" },
            { head: "single-stream tok/s" },
            { head: "TTFT p50 ms" },
            { head: "peak aggregate tok/s" },
            { head: words.run.head },
            { head: "errors" },
            { head: "document", class: "text" },
          ],
          rows: [...view.history].reverse().map((h) => ({
            cells: [
              text(when(h.startedAt)),
              text(`${h.status}${h.valid ? "" : ", invalid"}`),
              num(fmt(h.singleStreamOutputTokensPerSecond, 1)),
              num(fmt(h.singleStreamTtftP50Ms)),
              num(fmt(h.peakAggregateOutputTokensPerSecond)),
              num(words.run.cell(h)),
              num(pct(h.errorRate)),
              text(`${h.runId}.json`, { href: `${root}data/${h.key}` }),
            ],
          })),
        },
      ],
    },
  };
}

/** The last readable run, level by level: throughput and latency, the tail, outcomes, the client, and the workload and route. */
function lastRun(
  view: TargetView,
  details: NonNullable<TargetView["details"]>,
  words: AxisWords,
): TargetPage["lastRun"] {
  const cell = (l: (typeof details.levels)[number]) => levelCell(l.load);
  const heads = (hs: string[], textFrom = hs.length) =>
    hs.map((head, i) => (i >= textFrom ? { head, class: "text" } : { head }));
  const { route, servedProviders: served } = view.latest;
  const harness = details.harness;
  return {
    runId: details.runId,
    note: `, ${when(details.startedAt)} to ${when(details.finishedAt)}, status ${details.status}${details.partialReason ? ` (${details.partialReason})` : ""}.`,
    blocks: [
      {
        heading: "Throughput and median latency",
        level: 3,
        table: {
          id: "levels",
          label: "Throughput and median latency per level, last run",
          columns: heads(
            [
              words.head,
              "aggregate tok/s",
              "per-stream tok/s p50",
              "per-stream tok/s p90",
              "decode tok/s p50",
              "TTFT p50 ms",
              "e2e p50 ms",
              "TPOT p50 ms",
              "inter-chunk p50 ms",
              "valid",
            ],
            9,
          ),
          rows: details.levels.map((l) => ({
            cells: [
              cell(l),
              num(fmt(l.aggregateOutputTokensPerSecond)),
              num(fmt(l.perStream.outputTokensPerSecond.p50, 1)),
              num(fmt(l.perStream.outputTokensPerSecond.p90, 1)),
              num(fmt(l.perStream.decodeTokensPerSecond.p50, 1)),
              num(fmt(l.ttftMs.p50)),
              num(fmt(l.e2eMs.p50)),
              num(fmt(l.tpotMs.p50, 1)),
              num(fmt(l.interChunkMs.p50, 1)),
              text(l.valid ? "valid" : `invalid: ${l.invalidReasons.join("; ")}`),
            ],
          })),
        },
      },
      {
        heading: null,
        level: 3,
        table: {
          id: "levels-tail",
          label: "Tail latency per level, last run",
          details: { summary: "Tail latency per level (p95, p99)", open: false, id: "tail" },
          columns: heads([words.head, "TTFT p95 ms", "TTFT p99 ms", "e2e p95 ms", "e2e p99 ms", "inter-chunk p99 ms"]),
          rows: details.levels.map((l) => ({
            cells: [
              cell(l),
              num(fmt(l.ttftMs.p95)),
              num(fmt(l.ttftMs.p99)),
              num(fmt(l.e2eMs.p95)),
              num(fmt(l.e2eMs.p99)),
              num(fmt(l.interChunkMs.p99, 1)),
            ],
          })),
        },
      },
      {
        heading: "Request outcomes",
        level: 3,
        table: {
          id: "levels-outcomes",
          label: "Request outcomes per level, last run",
          columns: heads([
            words.head,
            "sent",
            "ok",
            "429",
            "route mismatch",
            "HTTP error",
            "timeout",
            "network",
            "incomplete",
          ]),
          rows: details.levels.map((l) => ({
            cells: [
              cell(l),
              ...[
                l.requests.sent,
                l.requests.ok,
                l.requests.rateLimited,
                l.requests.routeMismatch,
                l.requests.httpError,
                l.requests.timeout,
                l.requests.network,
                l.requests.incomplete,
              ].map((n) => num(String(n))),
            ],
          })),
        },
      },
      {
        heading: "The measuring client",
        level: 3,
        table: {
          id: "levels-client",
          label: "Measuring client per level, last run",
          columns: heads(
            [
              words.head,
              "wall time s",
              words.inFlight,
              "event-loop lag p99 ms",
              "client limited",
              "tokens counted from chunks",
            ],
            4,
          ),
          rows: details.levels.map((l) => ({
            cells: [
              cell(l),
              num(fmt(l.wallTimeMs / 1000, 1)),
              num(fmt(l.achievedConcurrency, 1)),
              num(fmt(l.client.eventLoopLagP99Ms, 1)),
              text(l.client.limited ? "yes" : "no"),
              text(l.tokensFromChunks ? "yes" : "no"),
            ],
          })),
        },
      },
      {
        heading: "Workload and route, as measured",
        level: 2,
        table: {
          id: "route",
          label: "Workload and route of the last run",
          columns: [],
          rows: [
            ["gateway", route.gateway],
            ["pinned provider", route.provider ?? "none (direct endpoint)"],
            ...(route.deployment ? [["pinned deployment", route.deployment]] : []),
            ["served by", served.length ? served.join(", ") : "not reported by the endpoint"],
            [
              "harness",
              `kneeboard ${harness.version}, Node ${harness.node}, ${harness.host}${harness.region ? `, ${harness.region}` : ""}`,
            ],
            ...Object.entries(details.workload).map(([k, v]) => [k, JSON.stringify(v)]),
          ].map(([k, v]) => ({ cells: [text(String(k), { header: true }), text(String(v))] })),
        },
      },
    ],
  };
}
