import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StoreError } from "../errors/index.ts";
import { FolderStore } from "../store/folder.ts";
import { DELIVERED_KEY, DeliveredFile, StoreAlertLedger } from "./store.ts";

const tmpStore = () => new FolderStore(mkdtempSync(join(tmpdir(), "kneeboard-ledger-")));

describe("StoreAlertLedger on a FolderStore", () => {
  it("claims each (alert, state, channel) exactly once", async () => {
    const ledger = new StoreAlertLedger(tmpStore());
    expect(await ledger.claim("a1", "open", "sns")).toBe(true);
    expect(await ledger.claim("a1", "open", "sns")).toBe(false);
    expect(await ledger.claim("a1", "resolved", "sns")).toBe(true);
    expect(await ledger.claim("a1", "open", "webhook")).toBe(true);
    expect(await ledger.claim("a2", "open", "sns")).toBe(true);
  });

  it("gives one of many concurrent claims true, and keeps every concurrent claim of distinct keys", async () => {
    const store = tmpStore();
    const ledger = new StoreAlertLedger(store);
    const same = await Promise.all(Array.from({ length: 20 }, () => ledger.claim("a1", "open", "sns")));
    const distinct = await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.claim(`b${i}`, "open", "sns")));
    expect(same.filter(Boolean)).toHaveLength(1);
    expect(distinct.every(Boolean)).toBe(true);
    const file = DeliveredFile.parse(JSON.parse((await store.get(DELIVERED_KEY)) ?? ""));
    expect(Object.keys(file.delivered)).toHaveLength(21);
  });

  it("survives a new instance on the same folder", async () => {
    const store = tmpStore();
    const now = () => new Date("2025-02-01T00:00:00Z");
    await new StoreAlertLedger(store, { now }).claim("a1", "open", "sns");
    const again = new StoreAlertLedger(new FolderStore(store.root));
    expect(await again.claim("a1", "open", "sns")).toBe(false);
    expect(JSON.parse(readFileSync(join(store.root, "state", "delivered.json"), "utf8"))).toEqual({
      schemaVersion: 1,
      delivered: { a1: { sns: { open: "2025-02-01T00:00:00.000Z" } } },
    });
  });

  it("lets a released claim be claimed again, and ignores releasing what was never claimed", async () => {
    const ledger = new StoreAlertLedger(tmpStore());
    await ledger.claim("a1", "open", "sns");
    await ledger.release("a1", "open", "sns");
    await ledger.release("zz", "open", "sns");
    expect(await ledger.claim("a1", "open", "sns")).toBe(true);
  });

  it("names the key when the file is malformed, and keeps serving later claims", async () => {
    const store = tmpStore();
    await store.put(DELIVERED_KEY, "{ nope");
    const ledger = new StoreAlertLedger(store);
    await expect(ledger.claim("a1", "open", "sns")).rejects.toThrow(StoreError);
    await expect(ledger.claim("a1", "open", "sns")).rejects.toThrow(/state\/delivered\.json is not JSON/);
    await store.put(DELIVERED_KEY, '{"schemaVersion":1,"delivered":{}}');
    expect(await ledger.claim("a1", "open", "sns")).toBe(true);
  });
});
