import { describe, expect, it } from "vitest";
import type { Alert } from "../alerts/index.ts";
import type { AlertLedger } from "../ledger/index.ts";
import { MemoryAlertLedger } from "../ledger/memory.ts";
import { makeAlert, makeRouteChange } from "./alert.fixture.ts";
import { type Channel, deliver } from "./deliver.ts";

function recording(name: string, fail?: (a: Alert) => boolean): Channel & { sent: string[] } {
  const sent: string[] = [];
  return {
    name,
    sent,
    async send(alert) {
      if (fail?.(alert)) throw new Error(`cannot send ${alert.id}`);
      sent.push(`${alert.id}/${alert.state}`);
    },
  };
}

describe("deliver", () => {
  it("notifies regressions and route changes, open and resolved, never improvements", async () => {
    const channel = recording("c");
    const report = await deliver(
      [
        makeAlert({ id: "r1" }),
        makeAlert({ id: "r2", state: "resolved" }),
        makeRouteChange({ id: "rc" }),
        makeAlert({ id: "i1", kind: "improvement" }),
        makeAlert({ id: "i2", kind: "improvement", state: "resolved" }),
      ],
      { ledger: new MemoryAlertLedger(), channels: [channel] },
    );
    expect(report.notifying).toBe(3);
    expect(channel.sent).toEqual(["r1/open", "r2/resolved", "rc/open"]);
  });

  it("keeps going past a failed alert, and retries only the failed one next run", async () => {
    const ledger = new MemoryAlertLedger();
    let broken = true;
    const channel = recording("c", (a) => broken && a.id === "r1");
    const alerts = [makeAlert({ id: "r1" }), makeAlert({ id: "r2" })];
    const first = await deliver(alerts, { ledger, channels: [channel] });
    broken = false;
    const second = await deliver(alerts, { ledger, channels: [channel] });
    expect(first.channels.c).toEqual({ sent: 1, skipped: 0, failed: 1, errors: ["r1 open: cannot send r1"] });
    expect(second.channels.c).toEqual({ sent: 1, skipped: 1, failed: 0, errors: [] });
    expect(channel.sent).toEqual(["r2/open", "r1/open"]);
  });

  it("counts a ledger that cannot claim as a failure, and says when a claim could not be released", async () => {
    const ledger: AlertLedger = {
      claim: async (id) => {
        if (id === "bad") throw new Error("ledger down");
        return true;
      },
      release: async () => {
        throw new Error("still down");
      },
    };
    const channel = recording("c", (a) => a.id === "fails");
    const report = await deliver([makeAlert({ id: "bad" }), makeAlert({ id: "fails" }), makeAlert({ id: "ok" })], {
      ledger,
      channels: [channel],
    });
    expect(report.channels.c).toEqual({
      sent: 1,
      skipped: 0,
      failed: 2,
      errors: [
        "bad open: ledger claim failed: ledger down",
        "fails open: cannot send fails; release failed, not retried: still down",
      ],
    });
  });

  it("runs channels side by side, so a slow one does not hold up the others", async () => {
    const order: string[] = [];
    const slow: Channel = {
      name: "slow",
      send: () => new Promise((resolve) => setTimeout(() => resolve(void order.push("slow")), 50)),
    };
    const quick: Channel = { name: "quick", send: async () => void order.push("quick") };
    await deliver([makeAlert()], { ledger: new MemoryAlertLedger(), channels: [slow, quick] });
    expect(order).toEqual(["quick", "slow"]);
  });

  it("refuses two channels with one name (they would share ledger marks)", async () => {
    await expect(
      deliver([makeAlert()], { ledger: new MemoryAlertLedger(), channels: [recording("c"), recording("c")] }),
    ).rejects.toThrow(/two delivery channels are named c/);
  });
});
