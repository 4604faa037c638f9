/**
 * @module Where each scenario's pages live. The site's first scenario (`chat` when present) is ranked
 * at `/` and `/at/<N>/`, every scenario at `/s/<scenario>/` and `/s/<scenario>/at/<N>/`. A target or
 * model page shows its own first scenario at `/targets/<id>/` (`/models/<key>/`), each other at
 * `.../s/<scenario>/`. Paths are relative to the site root, with a trailing slash.
 */
import { targetModelKey } from "./models.ts";
import type { TargetView } from "./site-data.ts";

/** The ranking of a scenario under `/s/`. */
export function rankingPath(scenario: string): string {
  return `s/${scenario}/`;
}

/** One target's scenarios, in the site's order. */
export function targetScenarios(series: readonly TargetView[], scenarios: readonly string[], id: string): string[] {
  const own = new Set(series.filter((v) => v.id === id).map((v) => v.scenario));
  return scenarios.filter((s) => own.has(s));
}

/** One model's scenarios (those any of its routes ran), in the site's order. */
export function modelScenarios(
  series: readonly TargetView[],
  scenarios: readonly string[],
  modelKey: string,
): string[] {
  const own = new Set(series.filter((v) => targetModelKey(v) === modelKey).map((v) => v.scenario));
  return scenarios.filter((s) => own.has(s));
}

/** The target page of one scenario: `targets/<id>/` for the target's first scenario, `targets/<id>/s/<scenario>/` else. */
export function targetPath(series: readonly TargetView[], scenarios: readonly string[], id: string, scenario: string) {
  return targetScenarios(series, scenarios, id)[0] === scenario ? `targets/${id}/` : `targets/${id}/s/${scenario}/`;
}

/** The model page of one scenario, as `targetPath`. */
export function modelPath(
  series: readonly TargetView[],
  scenarios: readonly string[],
  modelKey: string,
  scenario: string,
) {
  return modelScenarios(series, scenarios, modelKey)[0] === scenario
    ? `models/${modelKey}/`
    : `models/${modelKey}/s/${scenario}/`;
}
