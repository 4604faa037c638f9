import { describe, expect, it } from "vitest";
import { z } from "zod";
import { disjointFields, INDEX_FIELDS, KINDS, STANDING_FIELDS } from "./index.ts";

describe("the kinds' index and standing fields", () => {
  it("merges fields that no two kinds share, in the registry's order", () => {
    const merged = disjointFields("run index", { a: { x: z.number() }, b: { y: z.string(), z: z.null() } });
    expect(Object.keys(merged)).toEqual(["x", "y", "z"]);
  });

  it("refuses two kinds that declare one field, naming both and the field", () => {
    expect(() =>
      disjointFields("run index", {
        closed: { goodput: z.number() },
        burst: { peak: z.number(), goodput: z.number() },
      }),
    ).toThrow("kinds closed and burst both declare the run index field goodput");
  });

  it("holds the registry's own fields: every kind's, each once", () => {
    const count = (pick: (k: (typeof KINDS)[keyof typeof KINDS]) => object) =>
      Object.values(KINDS).reduce((n, k) => n + Object.keys(pick(k)).length, 0);
    expect(Object.keys(INDEX_FIELDS)).toHaveLength(count((k) => k.index.entry));
    expect(Object.keys(STANDING_FIELDS)).toHaveLength(count((k) => k.index.standing));
    expect(Object.keys(INDEX_FIELDS)).toEqual(["reusablePromptTokenShare", "laterTurnsTtftP50Ms", "conversation"]);
  });
});
