/**
 * @module The workload layers (docs/config.md): a (target, scenario)'s workload is the defaults, then
 * the config's workload, then the target's, then the scenario's, each overriding field by field.
 */
import { DEFAULT_SLO } from "../metrics/index.ts";
import {
  type Config,
  DEFAULT_SCENARIO,
  DEFAULT_WORKLOAD,
  type Target,
  type Workload,
  type WorkloadOverride,
} from "./schema.ts";

/** The config's scenario names, in its order (`chat` when it names none). */
export function scenarioNames(config: Pick<Config, "scenarios">): string[] {
  return config.scenarios ? Object.keys(config.scenarios) : [DEFAULT_SCENARIO];
}

/** The scenarios a target is swept in: its own list, else all the config's, in the config's order. */
export function scenariosOf(config: Pick<Config, "scenarios">, target: Pick<Target, "scenarios">): string[] {
  return target.scenarios ?? scenarioNames(config);
}

/**
 * The global workload overridden field by field by the target's own, then by the scenario's (when
 * given; `chat` without `scenarios` in the config is the workload itself). An unknown scenario throws.
 */
export function workloadFor(
  config: Pick<Config, "workload"> & Partial<Pick<Config, "scenarios">>,
  target: Pick<Target, "workload">,
  scenario?: string,
): Workload {
  const layers = [
    config.workload,
    target.workload,
    scenario === undefined ? undefined : scenarioWorkload(config, scenario),
  ];
  const merged: Record<string, unknown> = { ...DEFAULT_WORKLOAD };
  for (const layer of layers) {
    // A layer's count or duration replaces the other one of the layers below.
    if (layer?.levelDurationSeconds !== undefined) delete merged.requestsPerLevel;
    if (layer?.requestsPerLevel !== undefined) delete merged.levelDurationSeconds;
    Object.assign(merged, layer);
  }
  // The SLO merges field by field too: a target or scenario may tighten one figure and keep the other.
  const slo = Object.assign({ ...DEFAULT_SLO }, ...layers.map((layer) => layer?.slo));
  return { ...merged, slo } as Workload;
}

/** A scenario's override; `chat` is the empty one when the config names no scenarios. */
function scenarioWorkload(config: Partial<Pick<Config, "scenarios">>, scenario: string): WorkloadOverride {
  const own = config.scenarios?.[scenario];
  if (own) return own;
  if (!config.scenarios && scenario === DEFAULT_SCENARIO) return {};
  throw new Error(`unknown scenario ${scenario}; known: ${scenarioNames(config).join(", ")}`);
}
