/**
 * @module The page model of a scenario's leaderboard (`/` for the site's first scenario, `/s/<scenario>/`
 * for each): its rankings, one per load kind its targets run (in the registry's order: closed loops
 * first), and the words around them.
 */
import { DEFAULT_STANDING } from "@kneeboard/core/config";
import { KIND_NAMES, KINDS, type KindName, kindsAmong, scenarioNotes, viewsOfKind } from "../kinds/index.ts";
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

/** The leaderboard of one scenario at `path` (`` for `/`, `s/<scenario>/` for each scenario's own page). */
export function leaderboardPage(index: SiteIndex, scenario: string, path: string): LeaderboardPage {
  const { series, scenarios } = index;
  // Links from `/` stay bare (`targets/x/`), as they always were.
  const root = path === "" ? "" : rootFrom(path);
  const views = viewsOf(series, scenario);
  const rankings = scenarioRankings(views, {
    scenario,
    named: scenarios.length > 1,
    targetHref: (id) => targetPath(series, scenarios, id, scenario),
    modelHref: (key) => modelPath(series, scenarios, key, scenario),
    window: views[0]?.standing.window ?? DEFAULT_STANDING,
  });
  // The page is titled and described by the kind that leads it.
  const leadKind = kindsAmong(views)[0] ?? (KIND_NAMES[0] as KindName);
  const lead = KINDS[leadKind];
  return {
    title: path === "" ? "LLM throughput leaderboard: one user and many at once" : lead.board.title(scenario),
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
  };
}
