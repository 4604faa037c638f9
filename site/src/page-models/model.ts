/**
 * @module The model page's model: everything `pages/models/[modelKey]/[...rest].astro` renders of one
 * model in one scenario, from the site index and the route's params. Its routes are grouped by load
 * axis (a route on an open loop never turns the others' curves into rates); each axis's figure
 * sections come from `modelCharts` (`target-charts.ts`) with the tables of their numbers, keyed by the
 * sections' ids here.
 */
import { DEFAULT_SLO } from "@kneeboard/core/config";
import { type LoadAxis, loadWords } from "@kneeboard/core/run";
import { levelPoints } from "../lib/charts/index.ts";
import { fmt, rootFrom } from "../lib/format.ts";
import { type LeaderboardRow, leaderboardRows } from "../lib/leaderboard.ts";
import { type AtLevelRow, atLevelRows, levelsRun, modelGroups, sloWords } from "../lib/models.ts";
import { type RateRow, rateRows } from "../lib/open-loop.ts";
import { modelPath, modelScenarios, rankingPath, targetPath } from "../lib/scenarios.ts";
import { headline, headlineFigures, rateHeadline } from "../lib/share.ts";
import { type TargetView, viewAxis, viewsOf } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";
import { viewPoints } from "../lib/view-points.ts";
import { num, type PageSection, type Table, text } from "./table.ts";

/** The route's params: `models/<key>/` (the model's first scenario) or `models/<key>/s/<scenario>/`. */
export interface ModelParams {
  modelKey: string;
  rest?: string | undefined;
}

/** Every model page's params: a model's first scenario at `models/<key>/`, each other at `models/<key>/s/<scenario>/`. */
export function modelPaths(index: SiteIndex): { params: ModelParams }[] {
  const { series, scenarios } = index;
  return scenarios.flatMap((scenario) => {
    const targets = viewsOf(series, scenario);
    return modelGroups(
      targets,
      targets.map((t) => t.id),
    ).map((g) => ({
      params: {
        modelKey: g.modelKey,
        rest: modelScenarios(series, scenarios, g.modelKey)[0] === scenario ? undefined : `s/${scenario}`,
      },
    }));
  });
}

/** A closed-loop route's row of the routes table. */
export interface ClosedRouteRow {
  row: LeaderboardRow;
  href: string;
  /** Gateway, and provider where pinned. */
  via: string;
  /** The latest run's goodput peak, and where. */
  goodput: { value: number; at: string } | null;
}

export interface ModelPage {
  title: string;
  description: string;
  path: string;
  root: string;
  /** The h1: the model, with its scenario where the site has several. */
  heading: string;
  modelKey: string;
  /** How its routes ask for the model, where that differs from its key. */
  askedAs: string[];
  routeCount: number;
  scenarioNav: { scenarios: string[]; current: string; hrefs: Record<string, string> };
  /** The routes on a closed loop: their table, figures, and a table per concurrency level; null when none. */
  closed: {
    label: string;
    slo: string;
    rows: ClosedRouteRow[];
    sections: PageSection[];
    levels: { n: number; id: string; label: string; href: string; rows: AtLevelRow[] }[];
  } | null;
  /** The routes on an open loop: ranked by capacity in requests/s, and their figures; null when none. */
  open: { rows: RateRow[]; hrefs: Record<string, string>; sections: PageSection[] } | null;
  /** Same model? Each route's canary tested against the model's reference route; null when no route has a verdict yet. */
  sameModel: Table | null;
}

interface Context {
  routes: TargetView[];
}

/** The tables beside each model figure section, by the section's id (`target-charts.ts`). */
const SECTION_TABLES: Record<string, (c: Context) => Table[]> = {
  "model-tradeoff": ({ routes }) => [
    {
      id: "model-tradeoff-numbers",
      label: "The curves' numbers",
      columns: [
        { head: "route", class: "text" },
        { head: "N" },
        { head: "per-stream tok/s p50" },
        { head: "aggregate tok/s" },
        { head: "goodput tok/s" },
        { head: "valid", class: "text" },
      ],
      rows: routes.flatMap((t) =>
        levelPoints(t.latest.levels).map((p) => ({
          data: { "data-target": t.id },
          cells: [
            text(t.label),
            num(String(p.position)),
            num(fmt(p.perStreamOutputTokensPerSecondP50, 1)),
            num(fmt(p.aggregateOutputTokensPerSecond)),
            num(fmt(p.goodputOutputTokensPerSecond)),
            text(p.valid ? "yes" : "no"),
          ],
        })),
      ),
    },
  ],
  "model-rate": ({ routes }) => {
    const byId = new Map(routes.map((t) => [t.id, t]));
    return [
      {
        id: "model-rate-numbers",
        label: "The charts' numbers: each offered rate of each route",
        caption: "Per route and offered rate, latest runs: the charts' numbers, valid or not",
        columns: [
          { head: "route", class: "text" },
          { head: "offered req/s" },
          { head: "achieved req/s" },
          { head: "TTFT p50 ms" },
          { head: "e2e p50 ms" },
          { head: "goodput tok/s" },
          { head: "aggregate tok/s" },
          { head: "valid", class: "text" },
        ],
        // Every rate of every route's latest run, valid or not, routes in the routes table's order.
        rows: rateRows(routes).flatMap((r) => {
          const t = byId.get(r.id) as TargetView;
          return viewPoints(t).map((p) => ({
            data: { "data-target": t.id },
            cells: [
              text(t.label),
              num(fmt(p.position, 2)),
              num(fmt(p.achievedRatePerSecond, 2)),
              num(fmt(p.ttftP50Ms)),
              num(fmt(p.e2eP50Ms)),
              num(fmt(p.goodputOutputTokensPerSecond)),
              num(fmt(p.aggregateOutputTokensPerSecond)),
              text(p.valid ? "yes" : "no"),
            ],
          }));
        }),
      },
    ];
  },
};

/** The model page of `params`, from the site index. */
export function modelPage(index: SiteIndex, params: ModelParams): ModelPage {
  const { series, scenarios } = index;
  const own = modelScenarios(series, scenarios, params.modelKey);
  const scenario = params.rest?.startsWith("s/") ? params.rest.slice(2) : own[0];
  const targets = scenario === undefined ? [] : viewsOf(series, scenario);
  const group = modelGroups(
    targets,
    targets.map((t) => t.id),
  ).find((g) => g.modelKey === params.modelKey);
  if (scenario === undefined || !group)
    throw new Error(`no model page for ${params.modelKey}${params.rest ? `/${params.rest}` : ""}`);
  const byId = new Map(targets.map((t) => [t.id, t]));
  const routes = group.targetIds.map((id) => byId.get(id) as TargetView);
  const { modelKey } = group;
  const path = modelPath(series, scenarios, modelKey, scenario);
  const root = rootFrom(path);
  const href = (id: string) => `${root}${targetPath(series, scenarios, id, scenario)}`;
  const on = (axis: LoadAxis) => routes.filter((t) => viewAxis(t) === axis);
  const closedRoutes = on("concurrency");
  const openRoutes = on("rate");
  const figureSections = index.modelCharts[scenario]?.[modelKey] ?? [];
  const sectionsOf = (axis: LoadAxis, c: Context): PageSection[] =>
    figureSections
      .filter((s) => s.axis === axis)
      .map((s) => ({ id: s.id, heading: s.heading, figures: s.figures, tables: SECTION_TABLES[s.id]?.(c) ?? [] }));
  const rows = leaderboardRows(closedRoutes);
  const rates = rateRows(openRoutes);
  /** The scenario's pages at N: `at/N/` for the site's first scenario, `s/<scenario>/at/N/` else. */
  const atBase = scenario === scenarios[0] ? "" : rankingPath(scenario);
  const named = scenarios.length > 1 ? ` (${scenario})` : "";
  const slo = routes[0]?.standing.slo ?? DEFAULT_SLO;
  return {
    // The page names the model by its key, as the leaderboard's group does; each route may call it otherwise.
    title: `${modelKey}: every route side by side${named}`,
    description: `${modelKey}: ${routes.length} ${routes.length === 1 ? "route" : "routes"} side by side. ${[
      ...rows.map((r) => headline(headlineFigures(byId.get(r.id) as TargetView))),
      ...rates.map((r) => rateHeadline(byId.get(r.id) as TargetView)),
    ].join("; ")}.`,
    path,
    root,
    heading: `${modelKey}${named}`,
    modelKey,
    askedAs: [...new Set(routes.map((t) => t.model))].some((n) => n !== modelKey)
      ? [...new Set(routes.map((t) => t.model))]
      : [],
    routeCount: routes.length,
    scenarioNav: {
      scenarios: own,
      current: scenario,
      hrefs: Object.fromEntries(own.map((x) => [x, `${root}${modelPath(series, scenarios, modelKey, x)}`])),
    },
    closed:
      closedRoutes.length === 0
        ? null
        : {
            label: `Routes of ${modelKey}: capacity, goodput and cost`,
            slo: sloWords(slo),
            rows: rows.map((r) => {
              const t = byId.get(r.id) as TargetView;
              const gp = t.latest.summary.goodputPeak;
              return {
                row: r,
                href: href(r.id),
                via: `${t.latest.route.gateway}${t.latest.route.provider ? ` → ${t.latest.route.provider}` : ""}`,
                goodput: gp ? { value: gp.goodputOutputTokensPerSecond, at: loadWords(gp.load) } : null,
              };
            }),
            sections: sectionsOf("concurrency", { routes: closedRoutes }),
            levels: levelsRun(closedRoutes).map((n) => ({
              n,
              id: `model-level-${n}`,
              label: `Routes of ${modelKey} at concurrency ${n}`,
              href: `${root}${atBase}at/${n}/`,
              rows: atLevelRows(closedRoutes, n),
            })),
          },
    open:
      openRoutes.length === 0
        ? null
        : {
            rows: rates,
            hrefs: Object.fromEntries(openRoutes.map((t) => [t.id, href(t.id)])),
            sections: sectionsOf("rate", { routes: openRoutes }),
          },
    sameModel: sameModelTable(routes, href),
  };
}

const VERDICT_WORDS = {
  same: "no difference detected",
  differs: "differs",
  "no-reference": "no reference route",
  "too-few-samples": "too few completions",
} as const;

/** Each route's same-model verdict beside its test's figures; null when none of them has one yet. */
function sameModelTable(routes: TargetView[], href: (id: string) => string): Table | null {
  const judged = routes.filter((t) => t.sameModel !== null);
  if (judged.length === 0) return null;
  return {
    id: "same-model",
    label: "Same model? Each route's canary completions tested against the reference route's",
    caption:
      "Same model? Each route's canary completions, tested against the model's reference route: MMD with a Hamming kernel, a permutation p-value stratified by prompt, Holm-corrected across the model's routes; differs at p < 0.01, or when the route reports other prompt token counts for the same prompts (another tokenizer or template). No difference detected is not proof of the same weights: it means none showed at this sample size (see the methodology).",
    columns: [
      { head: "route", class: "text" },
      { head: "verdict", class: "text" },
      { head: "p (Holm)" },
      { head: "completions" },
      { head: "why", class: "text" },
    ],
    rows: judged.map((t) => {
      const sm = t.sameModel as NonNullable<TargetView["sameModel"]>;
      return {
        data: { "data-target": t.id, "data-verdict": sm.verdict },
        cells: [
          text(t.label, { href: href(t.id) }),
          text(sm.cause === "reference" ? "reference" : VERDICT_WORDS[sm.verdict], {
            ...(sm.verdict === "differs" ? { class: "bad" } : {}),
          }),
          num(sm.pValue === null ? "—" : sm.pValue < 0.001 ? "< 0.001" : fmt(sm.pValue, 3)),
          num(fmt(sm.samples)),
          text(sm.reason),
        ],
      };
    }),
  };
}
