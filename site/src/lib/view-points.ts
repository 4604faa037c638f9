/** @module A target view's levels as chart points: which run they come from. */
import { loadAxis } from "@kneeboard/core/run";
import { AXES, type LevelPoint, levelPoints } from "./charts/axis.ts";
import type { TargetView } from "./site-index.ts";

/**
 * The latest run's levels as points: from its run document when it could be read (every figure,
 * with an open loop's achieved rate, in-flight and schedule lag), else from the index's figures; on an
 * axis whose figures need the document (`AxisEntry.needsDocument`), an unreadable latest run falls back
 * to the latest readable one.
 */
export function viewPoints(view: Pick<TargetView, "details" | "latest">): LevelPoint[] {
  const { details, latest } = view;
  const load = latest.levels[0]?.load ?? details?.levels[0]?.load;
  const needsDocument = load !== undefined && AXES[loadAxis(load)].needsDocument;
  if (details && (details.key === latest.key || needsDocument)) return levelPoints(details.levels);
  return levelPoints(latest.levels);
}
