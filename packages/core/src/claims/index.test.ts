/** @module The slot run id; the claim behaviours themselves are in the store contract suite. */
import { describe, expect, it } from "vitest";
import { KneeboardError } from "../errors/index.ts";
import { slotRunId } from "./index.ts";

describe("slotRunId", () => {
  it("is the same for every delivery of one slot, however the time is written", () => {
    const id = slotRunId("llama-3.1-8b-groq", "2025-01-01T06:00:00Z");
    expect(id).toMatch(/^20250101T060000Z-[0-9a-f]{10}$/);
    expect(slotRunId("llama-3.1-8b-groq", "2025-01-01T06:00:00.000Z")).toBe(id);
    expect(slotRunId("llama-3.1-8b-groq", "2025-01-01T07:00:00+01:00")).toBe(id);
  });

  it("differs by target and by slot, and is a safe key segment for any target id", () => {
    const ids = new Set([
      slotRunId("a", "2025-01-01T06:00:00Z"),
      slotRunId("b", "2025-01-01T06:00:00Z"),
      slotRunId("a", "2025-01-01T12:00:00Z"),
    ]);
    expect(ids.size).toBe(3);
    expect(slotRunId("weird/target id ✓", "2025-01-01T06:00:00Z")).toMatch(/^[A-Za-z0-9._-]+$/);
  });

  it("holds the scenario for any but chat, whose ids stay as before scenarios", () => {
    const chat = slotRunId("a", "2025-01-01T06:00:00Z");
    expect(slotRunId("a", "2025-01-01T06:00:00Z", "chat")).toBe(chat);
    const rag = slotRunId("a", "2025-01-01T06:00:00Z", "rag");
    expect(rag).toMatch(/^20250101T060000Z-rag-[0-9a-f]{10}$/);
    expect(rag.slice(-10)).not.toBe(chat.slice(-10));
    expect(slotRunId("a", "2025-01-01T06:00:00Z", "long-context")).toMatch(/^[A-Za-z0-9._-]+$/);
  });

  it("rejects a slot that is not a time", () => {
    expect(() => slotRunId("a", "soon")).toThrow(KneeboardError);
  });
});
