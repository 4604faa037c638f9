/** @module Fanning a slot out on an in-memory queue: one valid, grouped, deduplicated message per target. */
import { describe, expect, it } from "vitest";
import { slotRunId } from "../claims/index.ts";
import { parseConfig } from "../config/index.ts";
import { KneeboardError } from "../errors/index.ts";
import { fanOutSlot, MemoryQueue, planTime, SweepMessage, slotSweeps } from "./index.ts";

describe("fanOutSlot", () => {
  it("sends one message per target, grouped by target, deduplicated by the slot's run", async () => {
    const queue = new MemoryQueue();
    const result = await fanOutSlot(["a", "b"], "2026-12-03T07:00:00+01:00", queue);
    expect(result).toEqual({ slot: "2026-12-03T06:00:00.000Z", planned: 2 });
    expect(queue.sent.map((m) => SweepMessage.parse(JSON.parse(m.body)))).toEqual([
      { targetId: "a", slot: "2026-12-03T06:00:00.000Z" },
      { targetId: "b", slot: "2026-12-03T06:00:00.000Z" },
    ]);
    expect(queue.sent.map((m) => [m.groupId, m.deduplicationId])).toEqual([
      ["a", slotRunId("a", result.slot)],
      ["b", slotRunId("b", result.slot)],
    ]);
  });

  it("sends one message per (target, scenario), chat's without a scenario, each deduplicated by its run", async () => {
    const config = parseConfig(
      JSON.stringify({
        targets: ["a", "b"].map((id) => ({
          id,
          label: id,
          baseURL: "http://127.0.0.1:1/v1",
          model: "m",
          route: { gateway: "direct" },
          ...(id === "b" ? { scenarios: ["rag"] } : {}),
        })),
        scenarios: { chat: {}, rag: { promptTokens: 4000 } },
      }),
    );
    expect(slotSweeps(config)).toEqual([
      { targetId: "a", scenario: "chat" },
      { targetId: "a", scenario: "rag" },
      { targetId: "b", scenario: "rag" },
    ]);
    const queue = new MemoryQueue();
    const result = await fanOutSlot(slotSweeps(config), "2026-12-03T06:00:00Z", queue);
    expect(result.planned).toBe(3);
    expect(queue.sent.map((m) => JSON.parse(m.body))).toEqual([
      { targetId: "a", slot: result.slot },
      { targetId: "a", scenario: "rag", slot: result.slot },
      { targetId: "b", scenario: "rag", slot: result.slot },
    ]);
    expect(queue.sent.map((m) => [m.groupId, m.deduplicationId])).toEqual([
      ["a", slotRunId("a", result.slot)],
      ["a", slotRunId("a", result.slot, "rag")],
      ["b", slotRunId("b", result.slot, "rag")],
    ]);
  });

  it("refuses a time that is not one, sending nothing", async () => {
    const queue = new MemoryQueue();
    await expect(fanOutSlot(["a"], "later", queue)).rejects.toBeInstanceOf(KneeboardError);
    expect(queue.sent).toEqual([]);
  });
});

describe("planTime", () => {
  it("takes the schedule's time, the current moment without one, and refuses a time that is not one", () => {
    expect(planTime({ time: "2026-12-03T06:00:00Z" }, 5)).toBe("2026-12-03T06:00:00Z");
    expect(planTime({}, 5)).toBe(5);
    expect(planTime(undefined, 5)).toBe(5);
    expect(() => planTime({ time: "<aws.scheduler.scheduled-time>" }, 5)).toThrow(KneeboardError);
    expect(() => planTime({ time: 7 }, 5)).toThrow(/plan's event must be/);
  });
});
