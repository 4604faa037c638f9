/**
 * @module The page model of the leaderboard at one concurrency (`/at/<N>/` for the site's first
 * scenario, `/s/<scenario>/at/<N>/` for each): every target that ran N, of the kinds whose levels are a
 * concurrency N (`KindView.atN`), ranked by what each user gets there. Other kinds have no such page.
 */
import { DEFAULT_STANDING } from "@kneeboard/core/config";
import { KINDS, type KindName, viewKind } from "../kinds/index.ts";
import { type Fold, foldRows } from "../lib/fold.ts";
import { fmt, rootFrom } from "../lib/format.ts";
import { type AtLevelRow, atLevelRows, levelsRun } from "../lib/models.ts";
import { modelPath } from "../lib/scenarios.ts";
import { simulatedLabel } from "../lib/share.ts";
import { type TargetView, viewsOf } from "../lib/site-data.ts";
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
  /** Each row with its target's kind (`src/kinds/index.ts`): the row's `data-kind`; past the row budget, each model's best (`lib/fold.ts`). */
  rows: (AtLevelRow & { kind: KindName })[];
  /** What the rows leave out past the row budget, every route of a model being on its page; null where nothing. */
  fold: Fold | null;
  /** The other levels' pages, relative to this one. */
  levels: { n: number; href: string; current: boolean }[];
  /** The scenario's leaderboard, relative to this page. */
  boardHref: string;
  window: { windowHours: number; maxRuns: number };
}

/** The views of a scenario whose kind's levels are a concurrency N. */
const withN = (views: TargetView[]) => views.filter((v) => KINDS[viewKind(v)].atN);

/** The concurrency levels of a scenario that have a page. */
export function atLevels(index: SiteIndex, scenario: string): number[] {
  return levelsRun(withN(viewsOf(index.series, scenario)));
}

/** The leaderboard at N of one scenario, at `path`; `board` is the scenario's leaderboard from the site root. */
export function atLevelPage(index: SiteIndex, scenario: string, n: number, path: string, board: string): AtLevelPage {
  const { series, scenarios } = index;
  const targets = withN(viewsOf(series, scenario));
  const kinds = new Map(targets.map((t) => [t.id, viewKind(t)]));
  const { rows, fold } = foldRows(
    atLevelRows(targets, n).map((r) => ({ ...r, kind: kinds.get(r.id) as KindName })),
    (key) => modelPath(series, scenarios, key, scenario),
  );
  const root = rootFrom(path);
  const named = scenarios.length > 1 ? ` (${scenario})` : "";
  const users = `${n} ${n === 1 ? "user" : "users"}`;
  const top = rows.find((r) => r.rank !== null && r.perStream !== null);
  const count = rows.length + (fold?.routes ?? 0);
  return {
    title: `LLM throughput at ${users} at once${named}`,
    description: `${count} LLM ${count === 1 ? "endpoint" : "endpoints"} at ${users} at once${scenarios.length > 1 ? `, scenario ${scenario}` : ""}, ranked by what each user gets.${
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
    fold,
    levels: levelsRun(targets).map((l) => ({ n: l, href: `../${l}/`, current: l === n })),
    boardHref: `${root}${board}`,
    window: targets[0]?.standing.window ?? DEFAULT_STANDING,
  };
}
