/** @module `plan`, on the schedule: one sweep message per (target, scenario) for this schedule slot. */
import { fanOutSlot, planTime, slotSweeps } from "@kneeboard/core/scheduled";
import { deployedConfig, queue } from "./lib/deps.ts";

/**
 * The schedule's event is `{ time }`, the slot's scheduled time (sst.config.ts), the same on a duplicate
 * invocation, so that plans the same slot with the same deduplication ids; `{}` (a manual invoke) plans
 * the current moment.
 */
export async function handler(event: unknown = {}): Promise<{ slot: string; planned: number }> {
  const summary = await fanOutSlot(slotSweeps(deployedConfig()), planTime(event, Date.now()), queue("SweepQueue"));
  console.log(JSON.stringify({ plan: summary }));
  return summary;
}
