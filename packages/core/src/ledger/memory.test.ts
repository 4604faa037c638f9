import { describe, expect, it } from "vitest";
import { MemoryAlertLedger } from "./memory.ts";

describe("MemoryAlertLedger", () => {
  it("claims once until released", async () => {
    const ledger = new MemoryAlertLedger();
    const claims = await Promise.all([ledger.claim("a", "open", "sns"), ledger.claim("a", "open", "sns")]);
    expect(claims.sort()).toEqual([false, true]);
    await ledger.release("a", "open", "sns");
    expect(await ledger.claim("a", "open", "sns")).toBe(true);
  });
});
