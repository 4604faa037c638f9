/**
 * @module A target's prefill curve as data: TTFT p50 at concurrency 1 (one request alone, so no
 * queueing) of each scenario against its prompt tokens. Only loads with a concurrency have a level 1.
 */
import { concurrencyOf } from "@kneeboard/core/run";
import type { PrefillPoint } from "./charts/prefill.ts";
import type { TargetView } from "./site-data.ts";

/**
 * The prefill curve of one target: TTFT p50 at concurrency 1 of the latest readable run of each
 * scenario with a valid level at concurrency 1 and known prompt tokens, by prompt tokens; empty unless 2 or more.
 */
export function prefillPoints(views: readonly TargetView[]): PrefillPoint[] {
  const points = views.flatMap((v): PrefillPoint[] => {
    if (v.promptTokens === null || v.promptTokens === undefined || v.details === null) return [];
    const one = v.details.levels.find((l) => concurrencyOf(l.load) === 1);
    const ttft = one?.ttftMs.p50 ?? null;
    if (!one?.valid || ttft === null || !Number.isFinite(ttft)) return [];
    return [{ scenario: v.scenario, promptTokens: v.promptTokens, ttftP50Ms: ttft }];
  });
  return points.length >= 2 ? points.sort((a, b) => a.promptTokens - b.promptTokens) : [];
}
