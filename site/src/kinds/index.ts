/**
 * @module The registry of load kinds as the site shows them: one view per kind (`KindView`, view.ts),
 * each in its own module, listed once here and exhaustively (a kind without a view does not compile),
 * and the one place that says which kind a level, a run or a target view is. Pages iterate `KINDS` and
 * ask a view; nothing outside this folder tests a kind. The order is the pages' order: closed loops
 * lead, as their single-stream and concurrent figures are what the site exists to show.
 *
 * A new kind: its module here (`<kind>.ts` exporting a `KindView`), its line in `KINDS`, and its
 * member of `KindName`.
 */
import type { Load } from "@kneeboard/core/run";
import { closed } from "./closed.ts";
import { conversation } from "./conversation.ts";
import { open } from "./open.ts";
import { trace } from "./trace.ts";
import type { KindView } from "./view.ts";

export type { KindView, LoadCells, RoutesContext } from "./view.ts";

/** The kinds of load, as run documents name them: core's registry's (`Load["kind"]`). */
export type KindName = Load["kind"];

/** Every kind's view, in the pages' order. */
export const KINDS: Record<KindName, KindView> = { closed, conversation, open, trace };

/** The kinds in the pages' order. */
export const KIND_NAMES = Object.keys(KINDS) as KindName[];

/** What a level carries that says its kind: its load, and (run documents v2) its figures by turn. */
export interface KindedLevel {
  load: Load;
  conversation?: unknown;
}

/**
 * The kind of a level. From run document v3 its load names it; what was stored before (v2 documents
 * read raw, index entries written then) says a conversation as a closed load whose level carries
 * figures by turn (`conversation`).
 */
export function kindOf(level: KindedLevel): KindName {
  return level.load.kind === "closed" && level.conversation ? "conversation" : level.load.kind;
}

/** The levels a view's kind is read from: its latest run's, else its latest readable run's. */
interface ViewLevels {
  latest: { levels: readonly KindedLevel[] };
  details: { levels: readonly KindedLevel[] } | null;
}

/** The kind of a target view (its latest run); a view whose runs have no level yet shows as a closed loop. */
export function viewKind(view: ViewLevels): KindName {
  const levels = view.latest.levels.length > 0 ? view.latest.levels : (view.details?.levels ?? []);
  // A conversation run's levels without a turn (none answered) are still its levels.
  return levels.some((l) => kindOf(l) === "conversation") ? "conversation" : levels[0] ? kindOf(levels[0]) : "closed";
}

/** A view's kind and its view. */
export const viewOf = (view: ViewLevels): KindView => KINDS[viewKind(view)];

/** The views of one kind among these. */
export function viewsOfKind<V extends ViewLevels>(views: readonly V[], kind: KindName): V[] {
  return views.filter((v) => viewKind(v) === kind);
}

/** The kinds present among these views, in the pages' order. */
export function kindsAmong(views: readonly ViewLevels[]): KindName[] {
  const present = new Set(views.map(viewKind));
  return KIND_NAMES.filter((k) => present.has(k));
}

/** The scenarios whose every target is of one kind with a note (`request rates`), by scenario: the scenario links' marks. */
export function scenarioNotes<V extends ViewLevels & { scenario: string }>(
  series: readonly V[],
  scenarios: readonly string[],
): Record<string, string> {
  const notes: Record<string, string> = {};
  for (const s of scenarios) {
    const kinds = kindsAmong(series.filter((v) => v.scenario === s));
    const note = kinds.length === 1 ? KINDS[kinds[0] as KindName].scenarioNote : null;
    if (note) notes[s] = note;
  }
  return notes;
}
