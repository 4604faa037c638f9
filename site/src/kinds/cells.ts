/** @module Cells every kind's tables write alike: a level's position in its kind's words, its row's attribute, an estimate, a capacity's bracket. */
import { type Load, loadPosition } from "@kneeboard/core/run";
import type { Estimate } from "@kneeboard/core/standing";
import type { LoadAxis } from "../lib/charts/index.ts";
import { estimateTitle, fmt, fmtEstimate, pct } from "../lib/format.ts";
import type { CapacityBracket } from "../lib/leaderboard.ts";
import { type Cell, num } from "../lib/table.ts";

/** A level's cell: its position, as its kind writes it. */
export const levelCell = (words: { cell: (position: number) => string }, load: Load): Cell =>
  num(words.cell(loadPosition(load)));

/** A row's attribute naming its level on its axis (`data-concurrency="8"`, `data-rate="2"`). */
export const levelAttr = (axis: LoadAxis, load: Load) => ({ [`data-${axis}`]: String(loadPosition(load)) });

/** A cell of an estimate over runs: its median and interval, how many runs in its tooltip. */
export const est = (e: Estimate | null | undefined, digits = 0): Cell =>
  num(fmtEstimate(e, digits), { title: estimateTitle(e) });

/** A bracket's end as a closed loop writes it: whole users, or one decimal. */
const usersEnd = (x: number) => fmt(x, Number.isInteger(x) ? 0 : 1);

/** A search's bracket: `[5, 6] at 95 %`; each end written by `end` (users by default). */
export function searchedBracketText(b: CapacityBracket, end: (x: number) => string = usersEnd): string {
  const at = (x: number | null) => (x === null ? "—" : end(x));
  return `[${at(b.lo)}, ${at(b.hi)}]${b.confidence !== null ? ` at ${pct(b.confidence, 0)}` : ""}`;
}

/**
 * A ladder's bracket: `[4, 8), ladder`, `not measured above 16, ladder`, `[0, 1), ladder`; `no ranked
 * level` where none was judged; each end written by `end` (users by default).
 */
export function ladderBracketText(b: CapacityBracket, end: (x: number) => string = (x) => fmt(x)): string {
  if (b.lo !== null && b.hi === null) return `not measured above ${end(b.lo)}, ladder`;
  if (b.lo === null && b.hi === null) return "no ranked level";
  return `[${end(b.lo ?? 0)}, ${b.hi === null ? "—" : end(b.hi)}), ladder`;
}
