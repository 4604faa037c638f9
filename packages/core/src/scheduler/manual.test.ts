import { describe, expect, it } from "vitest";
import { ManualScheduler } from "./manual.ts";

describe("ManualScheduler", () => {
  it("fires timers in due order, each at its exact time", async () => {
    const scheduler = new ManualScheduler(100);
    const fired: [string, number][] = [];
    scheduler.setTimer(() => fired.push(["b", scheduler.now()]), 20);
    scheduler.setTimer(() => fired.push(["a", scheduler.now()]), 5);
    scheduler.setTimer(() => fired.push(["c", scheduler.now()]), 20);
    await scheduler.advance(30);
    expect(fired).toEqual([
      ["a", 105],
      ["b", 120],
      ["c", 120],
    ]);
    expect(scheduler.now()).toBe(130);
  });

  it("runs async work to its end, jumping over idle time", async () => {
    const scheduler = new ManualScheduler();
    const work = async () => {
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) {
        await scheduler.sleep(250);
        seen.push(scheduler.now());
      }
      return seen;
    };
    expect(await scheduler.run(work())).toEqual([250, 500, 750]);
  });

  it("ends a sleep at once when its signal aborts, and cancels its timer", async () => {
    const scheduler = new ManualScheduler();
    const abort = new AbortController();
    const slept = scheduler.sleep(1000, abort.signal);
    abort.abort();
    await slept;
    expect(scheduler.now()).toBe(0);
    expect(scheduler.timers).toBe(0);
  });

  it("says so when the work waits on nothing a timer brings", async () => {
    const scheduler = new ManualScheduler();
    await expect(scheduler.run(new Promise(() => {}))).rejects.toThrow(/no timer is pending/);
  });
});
