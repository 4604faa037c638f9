/**
 * @module The ranking table every load kind configures. A kind states its columns as entries (a
 * header and how a row fills its cell; the cell carries its own sort key, `data-v`), and this lays
 * them out: the rank and name columns every ranking starts with, then the kind's figures, its rows
 * grouped by model, one to a group, or all in one (a model page's routes). The page model folds a
 * ranking past its row budget (`fold.ts`), whatever kind made it.
 */
import { type Estimate, rankLabel, ranksBy } from "@kneeboard/core/standing";
import { type RankedGroup, rankedGroups } from "./leaderboard.ts";
import { targetModelKey } from "./models.ts";
import {
  type Cell,
  type Column,
  groupNote,
  lastRunNote,
  type RankingContext,
  type RankingGroup,
  type RankingRow,
  type RankingTable,
  type RoutesTable,
  type TargetCell,
} from "./rankings.ts";
import { sameModelWords } from "./same-model.ts";
import type { TargetView } from "./site-data.ts";

/** What every ranked row carries: its target, the model it serves, and its rank. */
export interface RankedRow {
  id: string;
  label: string;
  modelKey: string;
  simulated: boolean;
  rank: number | null;
  /** `=2` when shared, `2` when not. */
  rankLabel: string;
}

/** One column of figures: its header and how a row fills its cell. */
export type FigureColumn<R> = Column & { cell: (row: R) => Cell };

/** What a name cell says beside the name; the model line is the table's to give (`rankingTable`). */
export type NameNotes = Omit<TargetCell, "label" | "href" | "simulated" | "model">;

/** A ranking's columns: rank, the row's name, then the kind's figures. */
export interface RankingColumns<R extends RankedRow> {
  /** The rank column's tooltip (how ranks are shared); none where the table says it elsewhere. */
  rankTitle?: string;
  /** What a name cell says beside its link and name. */
  notes: (row: R) => NameNotes;
  figures: readonly FigureColumn<R>[];
}

/** The header row: rank, the name column headed `name`, then the figures' headers. */
function heads<R extends RankedRow>(columns: RankingColumns<R>, name: string): Column[] {
  return [
    { heading: "rank", type: "num", ...(columns.rankTitle ? { title: columns.rankTitle } : {}) },
    { heading: name, type: "text", className: "text" },
    ...columns.figures.map(({ cell: _, ...head }) => head),
  ];
}

/** One row of cells; `model` is the model line under the name, null where a group header or the page names it. */
function rowOf<R extends RankedRow>(
  columns: RankingColumns<R>,
  r: R,
  href: string,
  model: TargetCell["model"],
): RankingRow {
  const target: TargetCell = { label: r.label, href, simulated: r.simulated, ...columns.notes(r), model };
  return {
    id: r.id,
    modelKey: r.modelKey,
    cells: [
      { kind: "rank", label: r.rankLabel, value: r.rank },
      { kind: "target", target },
      ...columns.figures.map((c) => c.cell(r)),
    ],
  };
}

/**
 * Rows grouped by model (`rankedGroups`): a model with several routes on the page gets a header that
 * links its page and says which of its routes these are; a lone route names its model under its name.
 */
function modelGroups<R extends RankedRow>(columns: RankingColumns<R>, rows: R[], ctx: RankingContext): RankingGroup[] {
  return rankedGroups(rows).map((g: RankedGroup<R>) => ({
    modelKey: g.modelKey,
    header: g.modelRoutes > 1 ? { href: ctx.modelHref(g.modelKey), note: groupNote(g) } : null,
    rows: g.rows.map((r) =>
      rowOf(
        columns,
        r,
        ctx.targetHref(r.id),
        g.modelRoutes === 1 ? { key: r.modelKey, href: ctx.modelHref(r.modelKey) } : null,
      ),
    ),
  }));
}

/** Each row a group of its own, with its model named under its name: routes not grouped by model. */
function ownGroups<R extends RankedRow>(columns: RankingColumns<R>, rows: R[], ctx: RankingContext): RankingGroup[] {
  return rows.map((r) => ({
    modelKey: r.modelKey,
    header: null,
    rows: [rowOf(columns, r, ctx.targetHref(r.id), { key: r.modelKey, href: ctx.modelHref(r.modelKey) })],
  }));
}

/** What a kind says around its ranking: headings, lead, caption, notes (lib/rankings.ts `RankingTable`). */
export type RankingWords = Omit<RankingTable, "columns" | "groups" | "grouped">;

/** A leaderboard's ranking: its words, its columns, and its rows (in rank order) grouped by model or not. */
export function rankingTable<R extends RankedRow>(
  words: RankingWords,
  columns: RankingColumns<R>,
  rows: R[],
  by: { grouped: boolean; ctx: RankingContext },
): RankingTable {
  return {
    ...words,
    columns: heads(columns, "target"),
    groups: (by.grouped ? modelGroups : ownGroups)(columns, rows, by.ctx),
    grouped: by.grouped,
  };
}

/** A model page's routes of one kind (rows in rank order): one group, no model line (the page is the model's). */
export function routesTable<R extends RankedRow>(
  table: { id: string; label: string; modelKey: string; targetHref: (id: string) => string },
  columns: RankingColumns<R>,
  rows: R[],
): RoutesTable {
  return {
    id: table.id,
    label: table.label,
    columns: heads(columns, "route"),
    groups: [
      {
        modelKey: table.modelKey,
        header: null,
        rows: rows.map((r) => rowOf(columns, r, table.targetHref(r.id), null)),
      },
    ],
  };
}

/**
 * Views' rows ranked lower-first by an estimate (shared ranks where intervals overlap), in rank order,
 * then by the estimate's median, then by id; each row with its view's target, model and rank.
 */
export function rankedLowerFirst<R extends { v: TargetView }>(
  rows: R[],
  estimate: (row: R) => Estimate | null,
): (R & RankedRow)[] {
  const ranks = ranksBy(
    rows.map((r) => ({ id: r.v.id, estimate: estimate(r) })),
    "lower",
  );
  const all = [...ranks.values()];
  const last = Number.POSITIVE_INFINITY;
  return rows
    .map((r) => ({
      ...r,
      id: r.v.id,
      label: r.v.label,
      modelKey: targetModelKey(r.v),
      simulated: r.v.simulated,
      rank: ranks.get(r.v.id) ?? null,
      rankLabel: rankLabel(ranks.get(r.v.id) ?? null, all),
    }))
    .sort(
      (a, b) =>
        (a.rank ?? last) - (b.rank ?? last) ||
        (estimate(a)?.median ?? last) - (estimate(b)?.median ?? last) ||
        a.v.id.localeCompare(b.v.id),
    );
}

/** What a view's name cell says beside its name where a ranking has no problem or invalid levels to tell: the last run's errors, same model. */
export const viewNotes = ({ v }: { v: TargetView }): NameNotes => ({
  problem: null,
  notes: lastRunNote(v.latest.summary.errorRate, v.latest.summary.rateLimitRate),
  invalid: null,
  sameModel: sameModelWords(v.sameModel),
});
