/** @module Cells every kind's tables write alike: a level's position in its kind's words, its row's attribute, an estimate. */
import { type Load, loadPosition } from "@kneeboard/core/run";
import type { Estimate } from "@kneeboard/core/standing";
import type { LoadAxis } from "../lib/charts/index.ts";
import { estimateTitle, fmtEstimate } from "../lib/format.ts";
import { type Cell, num } from "../lib/table.ts";

/** A level's cell: its position, as its kind writes it. */
export const levelCell = (words: { cell: (position: number) => string }, load: Load): Cell =>
  num(words.cell(loadPosition(load)));

/** A row's attribute naming its level on its axis (`data-concurrency="8"`, `data-rate="2"`). */
export const levelAttr = (axis: LoadAxis, load: Load) => ({ [`data-${axis}`]: String(loadPosition(load)) });

/** A cell of an estimate over runs: its median and interval, how many runs in its tooltip. */
export const est = (e: Estimate | null | undefined, digits = 0): Cell =>
  num(fmtEstimate(e, digits), { title: estimateTitle(e) });
