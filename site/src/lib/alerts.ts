/**
 * @module What the alerts page says of each alert's (target, scenario): its label, its scenario and the
 * target page of that scenario; and the targets one can subscribe to (per target id, whichever
 * scenarios they ran).
 */
import type { Alert } from "@kneeboard/core/alerts";
import { targetPath, targetScenarios } from "./scenarios.ts";
import type { TargetView } from "./site-data.ts";

/** One target as the subscribe form and the feed list name it. */
export interface SiteTarget {
  id: string;
  /** The label of its first scenario's latest run. */
  label: string;
}

/** Every target id with runs in any scenario, by id, labelled by its first scenario (in the site's order). */
export function siteTargets(series: readonly TargetView[], scenarios: readonly string[]): SiteTarget[] {
  const ids = [...new Set(series.map((v) => v.id))].sort();
  return ids.map((id) => {
    const first = targetScenarios(series, scenarios, id)[0];
    const view = series.find((v) => v.id === id && v.scenario === first) ?? series.find((v) => v.id === id);
    return { id, label: view?.label ?? id };
  });
}

/** Who an alert is about, and where its page is. */
export interface AlertSubject {
  /** The (target, scenario)'s label on the site, else the alert's own; with `, scenario <name>` when the site has several. */
  text: string;
  /** The target page of the alert's scenario (relative to the site root); the target's first page when that scenario has none; null when the target has no page. */
  href: string | null;
}

export function alertSubject(alert: Alert, series: readonly TargetView[], scenarios: readonly string[]): AlertSubject {
  const own = series.find((v) => v.id === alert.targetId && v.scenario === alert.scenario);
  const anyScenario = series.some((v) => v.id === alert.targetId);
  const label = own?.label ?? alert.label;
  return {
    text: scenarios.length > 1 ? `${label}, scenario ${alert.scenario}` : label,
    href: own
      ? targetPath(series, scenarios, alert.targetId, alert.scenario)
      : anyScenario
        ? `targets/${alert.targetId}/`
        : null,
  };
}
