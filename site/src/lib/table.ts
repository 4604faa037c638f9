/**
 * @module A table as a page model hands it to a page: columns and rows of cells, each cell its text
 * and what it carries (a link, a note under it, a tooltip), so a component renders any table alike.
 */
import type { Figure } from "../lib/site-index.ts";

export interface Column {
  head: string;
  class?: string;
  title?: string;
}

export interface Cell {
  text: string;
  /** A header cell (a row's name), where a table has no head row. */
  header?: boolean;
  class?: string;
  title?: string;
  /** The text is a link to here. */
  href?: string;
  /** The text is code. */
  code?: boolean;
  /** A line under the text, in `noteClass` (default `note`). */
  note?: string;
  noteClass?: string;
}

export interface Row {
  cells: Cell[];
  /** Attributes of the row (`data-target`, `data-concurrency`...). */
  data?: Record<string, string>;
}

export interface Table {
  id: string;
  /** The scroll box's name, read out when it gets focus. */
  label: string;
  caption?: string;
  /** No head row when empty (a table of named rows). */
  columns: Column[];
  rows: Row[];
  /** Folded away in a `<details>` with this summary. */
  details?: { summary: string; open: boolean; id?: string };
}

/** A heading, its figures (side by side when several) and the tables of their numbers. */
export interface PageSection {
  id: string;
  heading: string | null;
  figures: Figure[];
  tables: Table[];
}

/** One of a page's headline figures. */
export interface Headline {
  label: string;
  value: string;
  title?: string;
  id?: string;
  /** Said after the value, smaller ("at N=8"). */
  note?: string;
}

/** A cell of text (class `text`). */
export const text = (t: string, more: Omit<Cell, "text"> = {}): Cell => ({
  text: t,
  ...more,
  class: more.class ? `text ${more.class}` : "text",
});
/** A cell of a number, already formatted. */
export const num = (t: string, more: Omit<Cell, "text"> = {}): Cell => ({ text: t, ...more });
