/**
 * @module The page model of a scenario's leaderboard (`/` for the site's first scenario, `/s/<scenario>/`
 * for each): its rankings, one per load kind its targets run (in the registry's order: closed loops
 * first), and the words around them.
 */
import { DEFAULT_STANDING } from "@kneeboard/core/config";
import { KIND_NAMES, KINDS, type KindName, kindsAmong, scenarioNotes, viewsOfKind } from "../kinds/index.ts";
import { type Facet, facetPath, facetValue, facetValues, filterViews } from "../lib/facets.ts";
import { type Fold, foldRanking } from "../lib/fold.ts";
import { rootFrom } from "../lib/format.ts";
import type { RankingContext, RankingTable } from "../lib/rankings.ts";
import { modelPath, targetPath } from "../lib/scenarios.ts";
import { type TargetView, viewsOf } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";
import { withToolCalls } from "../lib/tool-calls-column.ts";

export interface ScenarioLinks {
  scenarios: string[];
  current: string;
  href: (scenario: string) => string;
  label: string;
  /** What to say after a scenario's name (`request rates`), by scenario. */
  notes: Record<string, string>;
}

export interface LeaderboardPage {
  title: string;
  description: string;
  /** This page's path from the site root. */
  path: string;
  /** From this page to the site root. */
  root: string;
  scenarios: ScenarioLinks;
  /** The first leads the page; the others are sections below it. */
  rankings: RankingTable[];
  /** What each ranking folded away past its row budget (`lib/fold.ts`), by ranking; null where nothing. */
  folds: (Fold | null)[];
  /** Links that filter the scenario's routes by provider or gateway (`lib/facets.ts`), hrefs from this page. */
  filters: FilterLinks;
  /** On a filter's page: which one, and the whole leaderboard's href from this page; null elsewhere. */
  filter: { facet: Facet; value: string; routes: number; of: number; allHref: string } | null;
}

/** Each facet's values as links, the current one marked, and what the in-place filter (`RowFilter.astro`) matches rows on. */
export interface FilterLinks {
  facets: { facet: Facet; values: { value: string; routes: number; href: string; current: boolean }[] }[];
  rows: RowFacets;
}

/**
 * What the script that filters a page's rows in place reads: each row's provider and gateway (by
 * target id; its model is the row's `data-model`), and every value it suggests, with the page that
 * holds every route of it (a model's page, a filter page), hrefs from this page.
 */
export interface RowFacets {
  byTarget: Record<string, [provider: string | null, gateway: string | null]>;
  values: { value: string; facet: Facet | "model"; href: string }[];
}

/**
 * A scenario's rankings: one per kind its targets run, in the registry's order; a scenario with no
 * target yet still shows the (empty) first kind's table, which says how to make a run.
 */
export function scenarioRankings(views: readonly TargetView[], ctx: Omit<RankingContext, "section">): RankingTable[] {
  const kinds = kindsAmong(views);
  const present: KindName[] = kinds.length > 0 ? kinds : KIND_NAMES.slice(0, 1);
  return present.map((kind, i) => {
    const on = viewsOfKind(views, kind);
    return withToolCalls(KINDS[kind].board.ranking(on, { ...ctx, section: i > 0 }), on);
  });
}

/**
 * The leaderboard of one scenario at `path` (`` for `/`, `s/<scenario>/` for each scenario's own page),
 * or of its routes of one provider or gateway (`filter`, at `facetPath`).
 */
export function leaderboardPage(
  index: SiteIndex,
  scenario: string,
  path: string,
  filter: { facet: Facet; slug: string } | null = null,
): LeaderboardPage {
  const { series, scenarios } = index;
  // Links from `/` stay bare (`targets/x/`), as they always were.
  const root = path === "" ? "" : rootFrom(path);
  const all = viewsOf(series, scenario);
  const views = filter ? filterViews(all, filter.facet, filter.slug) : all;
  const modelHref = (key: string) => modelPath(series, scenarios, key, scenario);
  const folded = scenarioRankings(views, {
    scenario,
    named: scenarios.length > 1,
    targetHref: (id) => targetPath(series, scenarios, id, scenario),
    modelHref,
    window: views[0]?.standing.window ?? DEFAULT_STANDING,
  }).map((table) => foldRanking(table, modelHref));
  const rankings = folded.map((f) => f.table);
  const boardHref = scenario === scenarios[0] ? root : `${root}s/${scenario}/`;
  const facets = facetValues(all);
  const current = filter && facets.find((f) => f.facet === filter.facet)?.values.find((v) => v.slug === filter.slug);
  // The page is titled and described by the kind that leads it.
  const leadKind = kindsAmong(views)[0] ?? (KIND_NAMES[0] as KindName);
  const facetLinks = facets.map(({ facet, values }) => ({
    facet,
    values: values.map((v) => ({
      value: v.value,
      routes: v.routes,
      href: `${root}${facetPath(scenario, facet, v.slug)}`,
      current: v === current,
    })),
  }));
  const lead = KINDS[leadKind];
  return {
    title:
      path === ""
        ? "LLM throughput leaderboard: one user and many at once"
        : `${lead.board.title(scenario)}${current ? ` · ${filter?.facet} ${current.value}` : ""}`,
    description: lead.board.description(viewsOfKind(views, leadKind), scenario, scenarios.length),
    path,
    root,
    scenarios: {
      scenarios,
      current: scenario,
      href: (s) => (s === scenarios[0] ? root : `${root}s/${s}/`),
      label: "The leaderboard of another scenario",
      notes: scenarioNotes(series, scenarios),
    },
    rankings,
    folds: folded.map((f) => f.fold),
    filters: { facets: facetLinks, rows: rowFacets(rankings, views, facetLinks, (key) => `${root}${modelHref(key)}`) },
    filter:
      filter && current
        ? { facet: filter.facet, value: current.value, routes: views.length, of: all.length, allHref: boardHref }
        : null,
  };
}

/** The rows' providers and gateways, and the values to suggest: the page's models, then each facet's. */
function rowFacets(
  rankings: readonly RankingTable[],
  views: readonly TargetView[],
  facets: FilterLinks["facets"],
  modelHref: (key: string) => string,
): RowFacets {
  const rows = rankings.flatMap((t) => t.groups.flatMap((g) => g.rows));
  const shown = new Set(rows.map((r) => r.id));
  const byTarget: RowFacets["byTarget"] = {};
  for (const v of views) if (shown.has(v.id)) byTarget[v.id] = [facetValue(v, "provider"), facetValue(v, "gateway")];
  const models = [...new Set(rows.map((r) => r.modelKey))].sort();
  return {
    byTarget,
    values: [
      ...models.map((m) => ({ value: m, facet: "model" as const, href: modelHref(m) })),
      ...facets.flatMap((f) => f.values.map((v) => ({ value: v.value, facet: f.facet, href: v.href }))),
    ],
  };
}

/** Every filter page's params: each scenario's facets' values (`lib/facets.ts`). */
export function filterPaths(index: SiteIndex): { params: { scenario: string; facet: Facet; value: string } }[] {
  return index.scenarios.flatMap((scenario) =>
    facetValues(viewsOf(index.series, scenario)).flatMap(({ facet, values }) =>
      values.map((v) => ({ params: { scenario, facet, value: v.slug } })),
    ),
  );
}
