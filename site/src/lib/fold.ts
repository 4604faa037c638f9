/**
 * @module A leaderboard that stays readable (and light) at a thousand routes: past `ROW_BUDGET` rows,
 * each model shows its best routes only, the rest one click away on its model page, and models with
 * no row left are listed below the table by name. A ranking within the budget is left as it is.
 */
import type { RankingGroup, RankingTable } from "./rankings.ts";

/** Rows a ranking shows in full before it folds: about 1.2 KB of HTML each, so `/` stays well under 300 KB. */
export const ROW_BUDGET = 150;

/** A model whose routes are all folded away: its page and how many routes it has there. */
export interface FoldedModel {
  modelKey: string;
  href: string;
  routes: number;
}

/** What folding left out: the most routes a model shows, and the models that show none. */
export interface Fold {
  perModel: number;
  routes: number;
  models: FoldedModel[];
}

/**
 * The most routes per model that fit `budget` rows (at least 1), and which models then fit at all:
 * models in the order of their best row, each taking min(its routes, the cap).
 */
function capFor(routes: Map<string, number>, budget: number): { cap: number; shown: Set<string> } {
  const most = Math.max(...routes.values());
  let cap = 1;
  for (let k = most; k > 1; k--) {
    let rows = 0;
    for (const n of routes.values()) rows += Math.min(n, k);
    if (rows <= budget) {
      cap = k;
      break;
    }
  }
  const shown = new Set([...routes.keys()].slice(0, cap === 1 ? budget : routes.size));
  return { cap, shown };
}

/**
 * Rows in rank order folded to `budget` (unchanged within it) the way a ranking is (`foldRanking`):
 * each model's best rows, and what was left out (null: nothing). For a table without model groups,
 * the leaderboard at one concurrency.
 */
export function foldRows<T extends { modelKey: string }>(
  rows: readonly T[],
  modelHref: (modelKey: string) => string,
  budget = ROW_BUDGET,
): { rows: T[]; fold: Fold | null } {
  if (rows.length <= budget) return { rows: [...rows], fold: null };
  const routes = new Map<string, number>();
  for (const r of rows) routes.set(r.modelKey, (routes.get(r.modelKey) ?? 0) + 1);
  const { cap, shown } = capFor(routes, budget);
  const taken = new Map<string, number>();
  const kept = rows.filter((r) => {
    const n = taken.get(r.modelKey) ?? 0;
    taken.set(r.modelKey, n + 1);
    return shown.has(r.modelKey) && n < cap;
  });
  const models = [...routes]
    .filter(([key]) => !shown.has(key))
    .map(([modelKey, n]) => ({ modelKey, href: modelHref(modelKey), routes: n }));
  return { rows: kept, fold: { perModel: cap, routes: rows.length - kept.length, models } };
}

/** The ranking folded to `budget` rows (unchanged within it), and what was left out (null: nothing). */
export function foldRanking(
  table: RankingTable,
  modelHref: (modelKey: string) => string,
  budget = ROW_BUDGET,
): { table: RankingTable; fold: Fold | null } {
  // Every model's routes on the page, in the order of its best row (rows come in rank order).
  const routes = new Map<string, number>();
  for (const g of table.groups) for (const r of g.rows) routes.set(r.modelKey, (routes.get(r.modelKey) ?? 0) + 1);
  const total = [...routes.values()].reduce((a, b) => a + b, 0);
  if (total <= budget) return { table, fold: null };
  const { cap, shown } = capFor(routes, budget);
  const taken = new Map<string, number>();
  const groups: RankingGroup[] = [];
  for (const g of table.groups) {
    const rows = g.rows.filter((r) => {
      if (!shown.has(r.modelKey)) return false;
      const n = taken.get(r.modelKey) ?? 0;
      taken.set(r.modelKey, n + 1);
      return n < cap;
    });
    if (rows.length === 0) continue;
    const all = routes.get(g.modelKey) ?? rows.length;
    // A model with routes folded away says so in its header, whichever stretch of it this is.
    const header =
      all > cap
        ? {
            href: modelHref(g.modelKey),
            note: `its best ${cap === 1 ? "route" : `${cap} routes`} of ${all}; every route on the model's page`,
          }
        : g.header;
    groups.push({ ...g, header, rows });
  }
  const models = [...routes]
    .filter(([key]) => !shown.has(key))
    .map(([modelKey, n]) => ({ modelKey, href: modelHref(modelKey), routes: n }));
  const shownRows = groups.reduce((n, g) => n + g.rows.length, 0);
  return {
    table: { ...table, groups },
    fold: { perModel: cap, routes: total - shownRows, models },
  };
}
