/**
 * @module The page model of a scenario's leaderboard (`/` for the site's first scenario, `/s/<scenario>/`
 * for each): its rankings, one per load axis its targets run on (closed loops first), and the words
 * around them.
 */
import { DEFAULT_STANDING } from "@kneeboard/core/config";
import { rootFrom } from "../lib/format.ts";
import { type RankingTable, scenarioRankings } from "../lib/rankings.ts";
import { modelPath, targetPath } from "../lib/scenarios.ts";
import { scenarioDescription } from "../lib/share.ts";
import { openLoopScenarios, viewsOf } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";

export interface ScenarioLinks {
  scenarios: string[];
  current: string;
  href: (scenario: string) => string;
  label: string;
  /** Scenarios whose every target runs an open loop, marked as request rates. */
  openLoop: string[];
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
  const lead = rankings[0] as RankingTable;
  return {
    // Titled by what leads the page: the closed-loop ranking whenever the scenario has a closed-loop target.
    title:
      path === ""
        ? "LLM throughput leaderboard: one user and many at once"
        : lead.axis === "rate"
          ? `LLM serving capacity in requests/s: scenario ${scenario}`
          : `LLM throughput leaderboard: scenario ${scenario}`,
    description: scenarioDescription(views, scenario, scenarios.length),
    path,
    root,
    scenarios: {
      scenarios,
      current: scenario,
      href: (s) => (s === scenarios[0] ? root : `${root}s/${s}/`),
      label: "The leaderboard of another scenario",
      openLoop: openLoopScenarios(series, scenarios),
    },
    rankings,
  };
}
