/**
 * @module Fanning one schedule slot out: one sweep message per (target, scenario), grouped by target
 * on the FIFO queue.
 */
import { slotRunId } from "../claims/index.ts";
import { type Config, DEFAULT_SCENARIO, scenariosOf } from "../config/index.ts";
import { KneeboardError } from "../errors/index.ts";
import { type MessageQueue, type OutgoingMessage, PlanEvent, type SweepMessage } from "./messages.ts";

/** One sweep of a slot: a target in one scenario. */
export interface SlotSweep {
  targetId: string;
  scenario: string;
}

/** Every (target, scenario) of a config, target by target, each target's scenarios in its order. */
export function slotSweeps(config: Pick<Config, "targets" | "scenarios">): SlotSweep[] {
  return config.targets.flatMap((t) => scenariosOf(config, t).map((scenario) => ({ targetId: t.id, scenario })));
}

/** The message that starts a (target, scenario)'s sweep for a slot; `chat` messages carry no scenario, as before. */
export function sweepMessageFor(targetId: string, slot: string, scenario: string = DEFAULT_SCENARIO): OutgoingMessage {
  const message: SweepMessage = scenario === DEFAULT_SCENARIO ? { targetId, slot } : { targetId, scenario, slot };
  return {
    body: JSON.stringify(message),
    // One target's sweeps never overlap (one group, in order: its scenarios one after another,
    // so they never load its endpoint together); different targets run side by side.
    groupId: targetId,
    deduplicationId: slotRunId(targetId, slot, scenario),
  };
}

/**
 * The slot a `plan` invocation fans out: the schedule's `time`, or `now` (epoch ms) for an event without
 * one (a manual invoke). An event whose `time` is not an ISO 8601 time stops it, sending nothing.
 */
export function planTime(event: unknown, now: number): string | number {
  const parsed = PlanEvent.safeParse(event ?? {});
  if (!parsed.success)
    throw new KneeboardError(`plan's event must be {} or { "time": <ISO 8601 time> }, got ${JSON.stringify(event)}`);
  return parsed.data.time ?? now;
}

/**
 * Sends one sweep message per (target, scenario) for the slot that starts at `time` (an ISO time or
 * epoch ms; normalized to ISO 8601 UTC); a bare target id is its `chat` sweep. Returns the slot and
 * how many were sent (`planned`: what the `plan` function reports).
 */
export async function fanOutSlot(
  sweeps: readonly (SlotSweep | string)[],
  time: string | number,
  queue: MessageQueue,
): Promise<{ slot: string; planned: number }> {
  const when = new Date(time);
  if (Number.isNaN(when.getTime())) throw new KneeboardError(`invalid schedule time: ${String(time)}`);
  const slot = when.toISOString();
  await queue.send(
    ...sweeps.map((s) =>
      typeof s === "string" ? sweepMessageFor(s, slot) : sweepMessageFor(s.targetId, slot, s.scenario),
    ),
  );
  return { slot, planned: sweeps.length };
}
