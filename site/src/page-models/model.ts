/**
 * @module The model page's model: everything `pages/models/[modelKey]/[...rest].astro` renders of one
 * model in one scenario, from the site index and the route's params. Its routes are grouped by load
 * kind (a route on an open loop never turns the others' curves into rates), each kind its part in the
 * registry's order: its routes table, its sections (figures with their tables, `src/kinds/`), and a
 * table per level where its levels are a concurrency N.
 */
import { DEFAULT_SLO } from "@kneeboard/core/config";
import { KINDS, type KindName, kindsAmong, viewsOfKind } from "../kinds/index.ts";
import { modelSections } from "../kinds/sections.ts";
import { fmt, rootFrom } from "../lib/format.ts";
import { type AtLevelRow, atLevelRows, levelsRun, modelGroups, sloWords } from "../lib/models.ts";
import type { RoutesTable } from "../lib/rankings.ts";
import { modelPath, modelScenarios, rankingPath, targetPath } from "../lib/scenarios.ts";
import { type TargetView, viewsOf } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";
import { num, type PageSection, type Table, text } from "../lib/table.ts";
import { toolCallsTable } from "../lib/tool-calls-table.ts";

/** The route's params: `models/<key>/` (the model's first scenario) or `models/<key>/s/<scenario>/`. */
export interface ModelParams {
  modelKey: string;
  rest?: string | undefined;
}

/** Every model page's params: a model's first scenario at `models/<key>/`, each other at `models/<key>/s/<scenario>/`. */
export function modelPaths(index: SiteIndex): { params: ModelParams }[] {
  const { series, scenarios } = index;
  const only = index.only && new Set(index.only.modelKeys);
  return scenarios.flatMap((scenario) => {
    const targets = viewsOf(series, scenario);
    return modelGroups(
      targets,
      targets.map((t) => t.id),
    )
      .filter((g) => !only || only.has(g.modelKey))
      .map((g) => ({
        params: {
          modelKey: g.modelKey,
          rest: modelScenarios(series, scenarios, g.modelKey)[0] === scenario ? undefined : `s/${scenario}`,
        },
      }));
  });
}

/** The model's routes of one load kind: their table, figures, and a table per concurrency level where the kind has one. */
export interface ModelKindPart {
  /** The kind (`src/kinds/index.ts`): the part's `data-kind`. */
  kind: KindName;
  heading: string;
  note: string | null;
  routes: RoutesTable;
  sections: PageSection[];
  levels: { n: number; id: string; label: string; href: string; rows: AtLevelRow[] }[];
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
  /** Each load kind its routes run, in the registry's order. */
  kinds: ModelKindPart[];
  /** Same model? Each route's canary tested against the model's reference route; null when no route has a verdict yet. */
  sameModel: Table | null;
  /** Tool calls: every measure per route with its interval and count, the reference first; null when no route has a tool-call run. */
  toolCalls: Table | null;
}

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
  const figureSections = index.modelCharts[scenario]?.[modelKey] ?? [];
  /** The scenario's pages at N: `at/N/` for the site's first scenario, `s/<scenario>/at/N/` else. */
  const atBase = scenario === scenarios[0] ? "" : rankingPath(scenario);
  const named = scenarios.length > 1 ? ` (${scenario})` : "";
  const slo = sloWords(routes[0]?.standing.slo ?? DEFAULT_SLO);
  const kinds = kindsAmong(routes).map((kind): ModelKindPart => {
    const view = KINDS[kind];
    const on = viewsOfKind(routes, kind);
    return {
      kind,
      heading: view.model.heading,
      note: view.model.note,
      routes: view.model.routes(on, {
        targetHref: (id) => targetPath(series, scenarios, id, scenario),
        slo,
        modelKey,
      }),
      sections: modelSections(kind, on, figureSections),
      levels: view.atN
        ? levelsRun(on).map((n) => ({
            n,
            id: `model-level-${n}`,
            label: `Routes of ${modelKey} at concurrency ${n}`,
            href: `${root}${atBase}at/${n}/`,
            rows: atLevelRows(on, n),
          }))
        : [],
    };
  });
  return {
    // The page names the model by its key, as the leaderboard's group does; each route may call it otherwise.
    title: `${modelKey}: every route side by side${named}`,
    description: `${modelKey}: ${routes.length} ${routes.length === 1 ? "route" : "routes"} side by side. ${kinds
      .flatMap((k) =>
        k.routes.groups.flatMap((g) => g.rows.map((r) => KINDS[k.kind].headline(byId.get(r.id) as TargetView))),
      )
      .join("; ")}.`,
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
    kinds,
    sameModel: sameModelTable(routes, href),
    toolCalls: toolCallsTable(routes, href),
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
