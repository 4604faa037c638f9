/**
 * @module A ranking as data: a table's columns and its rows of cells, so one component
 * (`CellTable.astro`) draws any of them: the leaderboard's ranking of each load kind and a model page's
 * routes. Each kind's ranking lives in its module (`src/kinds/`); this file holds what they share.
 */

import { DEFAULT_SLO } from "@kneeboard/core/config";
import type { Estimate, Slo } from "@kneeboard/core/standing";
import { rankLabel, ranksBy } from "@kneeboard/core/standing";
import { pct } from "./format.ts";
import type { RankedGroup } from "./leaderboard.ts";
import { targetModelKey } from "./models.ts";
import { type SameModelWords, sameModelWords } from "./same-model.ts";
import type { TargetView } from "./site-data.ts";

/** One cell of a ranking row. */
export type Cell =
  | { kind: "rank"; label: string; value: number | null }
  | { kind: "target"; target: TargetCell }
  | {
      kind: "estimate";
      estimate: Estimate | null;
      digits: number;
      tooltip: boolean;
      title?: string;
      className?: string;
      /** What the cell says without an estimate (default a dash): "not measured" where the level was never run. */
      missing?: string;
      /** A line under the figure: a peak read over its whole level says so. */
      note?: string;
    }
  | { kind: "number"; value: number | null; digits: number; className?: string; suffix?: string; title?: string }
  /** A capacity: its figure (with an interval over runs), the bracket it lies in and how it was found; sorted on `value`, the bracket's lower end. */
  | {
      kind: "capacity";
      value: number | null;
      text: string;
      interval: string | null;
      bracket: string;
      title?: string;
      className?: string;
    }
  | { kind: "cost"; metered: number | null; declared: number | null; note: string | null }
  | { kind: "trend"; svg: string; title?: string }
  | { kind: "text"; text: string }
  | { kind: "toolCalls"; value: number | null; text: string; title: string };

/** The name cell: the target's link and what a reader must know before trusting its figures. */
export interface TargetCell {
  label: string;
  /** The target's page, from the site root. */
  href: string;
  simulated: boolean;
  /** The latest run's problem in words, and whether it is a partial run (else an invalid or stopped one). */
  problem: { text: string; partial: boolean } | null;
  /** The model line, shown when the row is not under its model's group header; href from the site root. */
  model: { key: string; href: string } | null;
  /** Notes under the name, plain text. */
  notes: string[];
  /** Levels invalid in some runs, with their reasons as a tooltip and a link to why (from the site root). */
  invalid: { text: string; title: string; href: string } | null;
  /** Same model as the reference route? A badge when it differs, a note when no difference was detected. */
  sameModel: SameModelWords | null;
  /** Tool calls: a badge when the route is worse than its reference or has no tool support (its verdict as the title). */
  toolCalls?: { badge: string; title: string } | null;
}

/** A ranking row's first two cells: its rank, and its target's name cell (label and simulated mark from the row). */
export function rankAndTarget(
  row: { rankLabel: string; rank: number | null; label: string; simulated: boolean },
  href: string,
  rest: Omit<TargetCell, "label" | "href" | "simulated">,
): Cell[] {
  return [
    { kind: "rank", label: row.rankLabel, value: row.rank },
    { kind: "target", target: { label: row.label, href, simulated: row.simulated, ...rest } },
  ];
}

/** A column: its header and how its cells sort. */
export interface Column {
  heading: string;
  /** A second, smaller line under the heading. */
  sub?: string;
  /** The header's tooltip. */
  title?: string;
  type: "num" | "text";
  /** The header of the order the rows come in. */
  sorted?: true;
  /** Not sortable (a sparkline). */
  fixed?: true;
  className?: string;
}

export interface RankingRow {
  id: string;
  modelKey: string;
  cells: Cell[];
}

/** Rows of one model that sit together; the header is shown when the model has several routes on the page. */
export interface RankingGroup {
  modelKey: string;
  header: { href: string; note: string } | null;
  rows: RankingRow[];
}

/** One ranking table and the words around it. */
export interface RankingTable {
  /** The load kind it ranks (its key in `src/kinds/index.ts`): the table's `data-kind`. */
  kind: string;
  /** The table's id (`leaderboard`, `rate-leaderboard`). */
  id: string;
  /** The heading when the table leads the page (h1), and when it is a section below another (h2). */
  heading: string;
  sectionHeading: string;
  /** The section's anchor when it is below another. */
  anchor: string;
  lead: string;
  /** The scroll box's name for a screen reader. */
  label: string;
  /** The caption: the text before a link to how figures are taken over runs (the methodology), and after it. */
  caption: [string, string];
  columns: Column[];
  groups: RankingGroup[];
  /** True when rows are grouped by model (`data-grouped`). */
  grouped: boolean;
  /** Shown when there is no row; `code` in backticks. */
  empty: string;
  /** A note under the table. */
  footnote: string | null;
  /** Links to the ranking at each level of this axis (`N=8` -> `at/8/`), relative to the page. */
  levelLinks: { text: string; href: string }[];
}

/** A model page's routes of one kind as a table: its columns and one row per route (in one group), ranked. */
export interface RoutesTable {
  id: string;
  /** The scroll box's name for a screen reader. */
  label: string;
  columns: Column[];
  groups: RankingGroup[];
}

/** What a table needs to know of its page. */
export interface RankingContext {
  scenario: string;
  /** True when the site has several scenarios (headings then name this one). */
  named: boolean;
  /** A target's page and a model's page in this scenario, from the site root. */
  targetHref: (id: string) => string;
  modelHref: (modelKey: string) => string;
  /** The standing window's hours and runs. */
  window: { windowHours: number; maxRuns: number };
  /** True when the table is a section below another (its lead is then a plain paragraph). */
  section: boolean;
}

export const slo = (views: readonly TargetView[]): Slo => views[0]?.standing.slo ?? DEFAULT_SLO;

/** What a group header says of its routes: all of them, or which stretch of them (another model ranks between). */
export function groupNote(g: RankedGroup<unknown>): string {
  if (g.rows.length === g.modelRoutes) return `${g.modelRoutes} routes, best first`;
  const below = g.modelRoutes - g.routesAbove - g.rows.length;
  const where = g.routesAbove > 0 && below > 0 ? "above and below" : g.routesAbove > 0 ? "above" : "below";
  return `${g.rows.length} of its ${g.modelRoutes} routes; the ${g.modelRoutes - g.rows.length === 1 ? "other ranks" : "others rank"} ${where}, past another model`;
}

/** Each view's same-model verdict in words, by id: looked up once per ranking, not per row. */
export const sameModelById = (views: readonly TargetView[]) =>
  new Map(views.map((v) => [v.id, sameModelWords(v.sameModel)]));

export const problemOf = (text: string | null) => (text ? { text, partial: text.startsWith("partial") } : null);
export const lastRunNote = (errorRate: number, rateLimitRate: number) =>
  errorRate > 0 || rateLimitRate > 0 ? [`last run: errors ${pct(errorRate)}, 429s ${pct(rateLimitRate)}`] : [];

/**
 * Rows ranked lower-first by an estimate (shared ranks where intervals overlap), in rank order, then
 * by the estimate's median, then by id; each row with its rank and its rank's label.
 */
export function rankedLowerFirst<R extends { v: TargetView }>(
  rows: R[],
  estimate: (row: R) => Estimate | null,
): (R & { rank: number | null; rankLabel: string })[] {
  const ranks = ranksBy(
    rows.map((r) => ({ id: r.v.id, estimate: estimate(r) })),
    "lower",
  );
  const all = [...ranks.values()];
  const last = Number.POSITIVE_INFINITY;
  return rows
    .map((r) => ({ ...r, rank: ranks.get(r.v.id) ?? null, rankLabel: rankLabel(ranks.get(r.v.id) ?? null, all) }))
    .sort(
      (a, b) =>
        (a.rank ?? last) - (b.rank ?? last) ||
        (estimate(a)?.median ?? last) - (estimate(b)?.median ?? last) ||
        a.v.id.localeCompare(b.v.id),
    );
}

/** A view's own row, one to a group (rankings that do not group routes by model): its rank, its name cell, then `cells`. */
export function viewGroup(
  r: { v: TargetView; rank: number | null; rankLabel: string },
  ctx: RankingContext,
  cells: Cell[],
): RankingGroup {
  const { v } = r;
  const modelKey = targetModelKey(v);
  return {
    modelKey,
    header: null,
    rows: [
      {
        id: v.id,
        modelKey,
        cells: [
          ...rankAndTarget(
            { rankLabel: r.rankLabel, rank: r.rank, label: v.label, simulated: v.simulated },
            ctx.targetHref(v.id),
            {
              problem: null,
              model: { key: modelKey, href: ctx.modelHref(modelKey) },
              notes: lastRunNote(v.latest.summary.errorRate, v.latest.summary.rateLimitRate),
              invalid: null,
              sameModel: sameModelWords(v.sameModel),
            },
          ),
          ...cells,
        ],
      },
    ],
  };
}

export const percent = (share: number | null | undefined) =>
  share === null || share === undefined ? null : share * 100;
