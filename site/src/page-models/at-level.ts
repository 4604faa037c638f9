/**
 * @module The page model of the leaderboard at one concurrency (`/at/<N>/` for the site's first
 * scenario, `/s/<scenario>/at/<N>/` for each): every closed-loop target that ran N, ranked by what
 * each user gets there. Open-loop levels are request rates, not concurrency: they have no such page.
 */
import { DEFAULT_STANDING } from "@kneeboard/core/config";
import { fmt, rootFrom } from "../lib/format.ts";
import { type AtLevelRow, atLevelRows, levelsRun } from "../lib/models.ts";
import { simulatedLabel } from "../lib/share.ts";
import { closedLoopViews, viewsOf } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";

export interface AtLevelPage {
  title: string;
  description: string;
  path: string;
  root: string;
  n: number;
  /** ` (scenario)` where the site has several scenarios, else empty. */
  named: string;
  users: string;
  rows: AtLevelRow[];
  /** The other levels' pages, relative to this one. */
  levels: { n: number; href: string; current: boolean }[];
  /** The scenario's leaderboard, relative to this page. */
  boardHref: string;
  window: { windowHours: number; maxRuns: number };
}

/** The concurrency levels of a scenario that have a page. */
export function atLevels(index: SiteIndex, scenario: string): number[] {
  return levelsRun(closedLoopViews(viewsOf(index.series, scenario)));
}

/** The leaderboard at N of one scenario, at `path`; `board` is the scenario's leaderboard from the site root. */
export function atLevelPage(index: SiteIndex, scenario: string, n: number, path: string, board: string): AtLevelPage {
  const { series, scenarios } = index;
  const targets = closedLoopViews(viewsOf(series, scenario));
  const rows = atLevelRows(targets, n);
  const root = rootFrom(path);
  const named = scenarios.length > 1 ? ` (${scenario})` : "";
  const users = `${n} ${n === 1 ? "user" : "users"}`;
  const top = rows.find((r) => r.rank !== null && r.perStream !== null);
  return {
    title: `LLM throughput at ${users} at once${named}`,
    description: `${rows.length} LLM ${rows.length === 1 ? "endpoint" : "endpoints"} at ${users} at once${scenarios.length > 1 ? `, scenario ${scenario}` : ""}, ranked by what each user gets.${
      top?.perStream
        ? ` Fastest per user at ${users}: ${simulatedLabel(top.label, top.simulated)}, ${fmt(top.perStream.median, 1)} tok/s per stream, ${fmt(top.aggregate?.median)} tok/s in all.`
        : ""
    }`,
    path,
    root,
    n,
    named,
    users,
    rows,
    levels: levelsRun(targets).map((l) => ({ n: l, href: `../${l}/`, current: l === n })),
    boardHref: `${root}${board}`,
    window: targets[0]?.standing.window ?? DEFAULT_STANDING,
  };
}
