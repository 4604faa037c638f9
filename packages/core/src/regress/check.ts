/**
 * @module One evaluation of a store (what `kneeboard check` and the scheduled check run): sync the
 * index, judge the new canary runs (same model?) and tool-call runs (worse for agents?), detect over every run, write `alerts.json` and the feeds, and say what changed since the
 * previous evaluation, which is what delivery sends.
 */
import { ALERTS_KEY, type Alert, AlertsFile } from "../alerts/index.ts";
import { writeAlerts } from "../feeds/index.ts";
import { type RunIndex, type RunIndexEntry, syncIndex } from "../run-index/index.ts";
import { judgeCanaryRuns, judgeToolCallRuns } from "../run-index/judge.ts";
import type { Store } from "../store/index.ts";
import { detectAlerts } from "./index.ts";

/** The alerts of the previous evaluation; an absent or malformed file reads as none (and is reported). */
export async function readAlerts(store: Store, warn: (message: string) => void = () => {}): Promise<Alert[]> {
  const body = await store.get(ALERTS_KEY);
  if (body === null) return [];
  try {
    const parsed = AlertsFile.safeParse(JSON.parse(body));
    if (parsed.success) return parsed.data.alerts;
    const first = parsed.error.issues[0];
    warn(
      `${ALERTS_KEY} is not a valid alerts file (${first?.path.join(".")}: ${first?.message}); treating it as empty`,
    );
  } catch {
    warn(`${ALERTS_KEY} is not JSON; treating it as empty`);
  }
  return [];
}

/** Alerts that are new, or whose state differs from the previous evaluation. */
export function changedAlerts(alerts: readonly Alert[], previous: readonly Alert[]): Alert[] {
  const before = new Map(previous.map((a) => [a.id, a.state]));
  return alerts.filter((a) => before.get(a.id) !== a.state);
}

export interface EvaluateResult {
  /** Every alert of the history, as written to `alerts.json`. */
  alerts: Alert[];
  /** The alerts of the previous `alerts.json`. */
  previous: Alert[];
  /** New or changed state since the previous file: what delivery sends. */
  changed: Alert[];
  /** Store keys written. */
  written: string[];
  /** The runs whose tool-call verdict this evaluation recorded, with it. */
  toolCallsJudged: RunIndexEntry[];
}

/** Evaluates the store's whole history and writes the alert keys. `now` is ISO 8601 UTC. */
export async function evaluateStore(options: {
  store: Store;
  index: RunIndex;
  now: string;
  siteUrl?: string;
  warn?: (message: string) => void;
}): Promise<EvaluateResult> {
  const warn = options.warn ?? (() => {});
  await syncIndex(options.store, options.index, warn);
  // Canary runs indexed since the last evaluation get their same-model verdict (the model_change alert reads it).
  const canaryJudged = await judgeCanaryRuns({
    store: options.store,
    index: options.index,
    entries: await options.index.entries(),
    warn,
  });
  // And runs with a tool-call phase get their tool-call verdict (the site shows it beside the same-model one).
  const entries = await judgeToolCallRuns({ store: options.store, index: options.index, entries: canaryJudged, warn });
  const judgedBefore = new Set(canaryJudged.filter((e) => e.toolCallsVerdict).map((e) => e.key));
  const toolCallsJudged = entries.filter((e) => e.toolCallsVerdict && !judgedBefore.has(e.key));
  const alerts = detectAlerts(entries);
  const previous = await readAlerts(options.store, warn);
  const targetIds = [...new Set(entries.map((e) => e.targetId))].sort();
  const written = await writeAlerts(options.store, alerts, { now: options.now, targetIds, siteUrl: options.siteUrl });
  return { alerts, previous, changed: changedAlerts(alerts, previous), written, toolCallsJudged };
}
