/**
 * @module The target page's model: everything `pages/targets/[id]/[...rest].astro` renders of one
 * (target, scenario), from the site index and the route's params. What differs by load kind (the
 * headline figures, the sections with their figures and tables, how a level is named) is the kind's
 * view (`src/kinds/`), asked through the registry, so a new load kind adds a view, not page markup.
 */
import { concurrencyOf, loadPosition } from "@kneeboard/core/run";
import { KINDS, type KindView, scenarioNotes, viewKind } from "../kinds/index.ts";
import { targetContext, targetSections } from "../kinds/sections.ts";
import { fmt, pct, rootFrom, when } from "../lib/format.ts";
import { targetModelKey } from "../lib/models.ts";
import { modelPath, targetPath, targetScenarios } from "../lib/scenarios.ts";
import { searchSection } from "../lib/search.ts";
import type { TargetView } from "../lib/site-data.ts";
import { type SiteIndex, seriesDetail } from "../lib/site-index.ts";
import { type Headline, num, type PageSection, type Table, text } from "../lib/table.ts";

/** The route's params: `targets/<id>/` (the target's first scenario) or `targets/<id>/s/<scenario>/`. */
export interface TargetParams {
  id: string;
  rest?: string | undefined;
}

/** Every target page's params: a target's first scenario at `targets/<id>/`, each other at `targets/<id>/s/<scenario>/`. */
export function targetPaths(index: SiteIndex): { params: TargetParams }[] {
  const { series, scenarios } = index;
  const only = index.only && new Set(index.only.targetIds);
  return series
    .filter((target) => !only || only.has(target.id))
    .map((target) => {
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
  scenarioNav: { scenarios: string[]; current: string; hrefs: Record<string, string>; notes: Record<string, string> };
  /** The load kind of its levels (`src/kinds/index.ts`): the sections' `data-kind`. */
  kind: string;
  /** What the figures below are medians of; `howHref` links the methodology after it. */
  standingNote: { text: string; howHref: string | null };
  headlines: Headline[];
  /** How a searched latest run found its levels (brackets, confidence, stop, cost, probes in order); null for a ladder. */
  search: PageSection | null;
  /** The latest run's and the standing's figures, each with the tables of their numbers. */
  sections: PageSection[];
  /** The last readable run, level by level; null when no run document could be read. */
  lastRun: { note: string; runId: string; blocks: { heading: string | null; level: 2 | 3; table: Table }[] } | null;
  /** The prefill curve across the target's scenarios: on its first page only. */
  prefill: PageSection | null;
  history: PageSection;
}

/** The target page of `params`, from the site index. */
export function targetPage(index: SiteIndex, params: TargetParams): TargetPage {
  const { series, scenarios } = index;
  const own = targetScenarios(series, scenarios, params.id);
  const scenario = params.rest?.startsWith("s/") ? params.rest.slice(2) : own[0];
  const listed = series.find((v) => v.id === params.id && v.scenario === scenario);
  if (!listed) throw new Error(`no target page for ${params.id}${params.rest ? `/${params.rest}` : ""}`);
  // The index lists the series with its recent runs; its page reads the whole history and its figures.
  const { view, charts: figureSections, prefill: targetPrefill } = seriesDetail(index, listed);
  const first = own[0] === view.scenario;
  const kind = viewKind(view);
  const words = KINDS[kind];
  const path = targetPath(series, scenarios, view.id, view.scenario);
  const root = rootFrom(path);
  const scenarioHref = (s: string) => `${root}${targetPath(series, scenarios, view.id, s)}`;
  /** The scenario is named where it tells the page apart: the target has several, or its only one is not the site's first. */
  const nameScenario = own.length > 1 || view.scenario !== scenarios[0];
  const { latest, details, standing } = view;
  const s = latest.summary;
  const modelKey = targetModelKey(view);
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
  const prefill = first ? targetPrefill : null;
  const prefillViews = series.filter((v) => v.id === view.id && KINDS[viewKind(v)].atN && v.promptTokens != null);
  return {
    title: nameScenario ? `${words.title(view)} · scenario ${view.scenario}` : words.title(view),
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
      notes: scenarioNotes(
        series.filter((v) => v.id === view.id),
        own,
      ),
    },
    kind,
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
    headlines: words.headlines(targetContext(view)),
    search: searchSection(view),
    sections: targetSections(view, figureSections),
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
  words: KindView,
): TargetPage["lastRun"] {
  const cell = (l: (typeof details.levels)[number]) => num(words.level.cell(loadPosition(l.load)));
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
              words.level.head,
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
          columns: heads([
            words.level.head,
            "TTFT p95 ms",
            "TTFT p99 ms",
            "e2e p95 ms",
            "e2e p99 ms",
            "inter-chunk p99 ms",
          ]),
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
            words.level.head,
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
              words.level.head,
              "wall time s",
              words.level.inFlight,
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
