/**
 * @module A ranking as data: a table's columns and its rows of cells, so one component
 * (`Ranking.astro`, `Routes.astro`) draws any of them: the leaderboard's ranking of each load kind and a
 * model page's routes. Each kind states its columns in its module (`src/kinds/`) and `ranking-table.ts`
 * lays them out; this file holds the data they share.
 */

import { DEFAULT_SLO } from "@kneeboard/core/config";
import type { Estimate, Slo } from "@kneeboard/core/standing";
import { pct } from "./format.ts";
import type { RankedGroup } from "./leaderboard.ts";
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

export const percent = (share: number | null | undefined) =>
  share === null || share === undefined ? null : share * 100;
