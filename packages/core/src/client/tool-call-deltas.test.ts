/** @module Tool-call deltas assembled alone, no server: by index, without one, repeated names, arguments as an object. */
import { describe, expect, it } from "vitest";
import { applyToolCallDeltas, type ToolCallFields } from "./tool-call-deltas.ts";

const apply = (...chunks: unknown[]) => {
  const result: ToolCallFields = { toolCalls: [], argumentsAsObject: false };
  for (const deltas of chunks) applyToolCallDeltas(result, deltas);
  return result;
};

describe("applyToolCallDeltas", () => {
  it("joins each call's fragments by index, interleaved, keeping the first id and name", () => {
    const r = apply(
      [{ index: 0, id: "a", function: { name: "f", arguments: "" } }],
      [{ index: 1, id: "b", function: { name: "g", arguments: '{"x"' } }],
      [{ index: 0, function: { arguments: '{"c":"caf\\u00' } }],
      [{ index: 1, function: { name: "g", arguments: ":1}" } }],
      [{ index: 0, id: "", function: { arguments: 'e9"}' } }],
    );
    expect(r.toolCalls).toEqual([
      { index: 0, id: "a", name: "f", arguments: '{"c":"caf\\u00e9"}' },
      { index: 1, id: "b", name: "g", arguments: '{"x":1}' },
    ]);
    expect(JSON.parse(r.toolCalls?.[0]?.arguments ?? "")).toEqual({ c: "café" });
    expect(r.argumentsAsObject).toBe(false);
  });

  it("without an index: a delta with a new id starts a call, one without joins the last", () => {
    const r = apply(
      [{ id: "a", function: { name: "f", arguments: "{" } }],
      [{ function: { arguments: "}" } }],
      [{ id: "b", function: { name: "g", arguments: "[" } }],
      [{ id: "b", function: { arguments: "]" } }],
    );
    expect(r.toolCalls).toEqual([
      { index: 0, id: "a", name: "f", arguments: "{}" },
      { index: 1, id: "b", name: "g", arguments: "[]" },
    ]);
  });

  it("stringifies arguments sent as an object and flags it; ignores what is not a delta", () => {
    const r = apply([{ index: 0, id: "a", function: { name: "f", arguments: { amount: 12, to: "EUR" } } }], null, [
      7,
      null,
    ]);
    expect(r.toolCalls).toEqual([{ index: 0, id: "a", name: "f", arguments: '{"amount":12,"to":"EUR"}' }]);
    expect(r.argumentsAsObject).toBe(true);
  });
});
