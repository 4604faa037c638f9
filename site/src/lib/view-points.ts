/** @module A target view's levels as chart points: which run they come from (their axis is `viewAxis`, site-data.ts). */

import { AXES, type LevelPoint, levelPoints } from "./charts/axis.ts";
import { viewAxis } from "./site-data.ts";
import type { TargetView } from "./site-index.ts";

/**
 * The latest run's levels as points: from its run document when it could be read (every figure,
 * with an open loop's achieved rate, in-flight and schedule lag), else from the index's figures; on an
 * axis whose figures need the document (`AxisEntry.needsDocument`), an unreadable latest run falls back
 * to the latest readable one.
 */
export function viewPoints(view: Pick<TargetView, "details" | "latest" | "openLoop">): LevelPoint[] {
  const { details, latest } = view;
  if (details && (details.key === latest.key || AXES[viewAxis(view)].needsDocument)) return levelPoints(details.levels);
  return levelPoints(latest.levels);
}
