/** @module A target view's levels as chart points: which run they come from and which load axis they lie on. */
import { loadAxis } from "@kneeboard/core/run";
import type { TargetView } from "../site-index.ts";
import { AXES, type LevelPoint, type LoadAxis, levelPoints } from "./axis.ts";

/**
 * The load axis of a view's charts: that of its latest readable run's levels (an open loop's latest
 * run is drawn against the offered rate), else of its latest run's, else concurrency.
 */
export function viewAxis(view: Pick<TargetView, "details" | "latest">): LoadAxis {
  const load = (view.details?.levels[0] ?? view.latest.levels[0])?.load;
  return load ? loadAxis(load) : "concurrency";
}

/**
 * The latest run's levels as points: from its run document when it could be read (every figure,
 * with an open loop's achieved rate, in-flight and schedule lag), else from the index's figures; on an
 * axis whose figures need the document (`AxisEntry.needsDocument`), an unreadable latest run falls back
 * to the latest readable one.
 */
export function viewPoints(view: Pick<TargetView, "details" | "latest">): LevelPoint[] {
  const { details, latest } = view;
  if (details && (details.key === latest.key || AXES[viewAxis(view)].needsDocument)) return levelPoints(details.levels);
  return levelPoints(latest.levels);
}
