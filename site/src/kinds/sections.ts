/**
 * @module Each kind's sections as a page shows them: the figures the build rendered (`build/charts.ts`)
 * joined with their tables, through the registry: a target's (its kind's), a model's (one kind's).
 */

import type { FigureSection, TargetView } from "../lib/site-index.ts";
import type { PageSection } from "../lib/table.ts";
import { joinSections, type ModelContext, type TargetContext, validSeries } from "../lib/target-charts.ts";
import { viewPoints } from "../lib/view-points.ts";
import { KINDS, type KindName, viewKind } from "./index.ts";

/** What a target's sections are drawn from. */
export function targetContext(view: TargetView): TargetContext {
  return { view, axis: KINDS[viewKind(view)].axis, levels: viewPoints(view) };
}

/** What a model's sections of one kind are drawn from. */
export function modelContext(kind: KindName, routes: TargetView[]): ModelContext {
  return { axis: KINDS[kind].axis, routes, series: validSeries(routes) };
}

/** A target page's sections of its kind, figures and tables (the history apart: the page puts it last). */
export function targetSections(view: TargetView, built: readonly FigureSection[]): PageSection[] {
  const kind = viewKind(view);
  return joinSections(built, KINDS[kind].target, kind, targetContext(view));
}

/** A model page's sections of one kind, figures and tables, from the built figures. */
export function modelSections(kind: KindName, routes: TargetView[], built: readonly FigureSection[]): PageSection[] {
  return joinSections(built, KINDS[kind].model.sections, kind, modelContext(kind, routes));
}
