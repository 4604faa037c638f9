/** @module The synthetic trace: the example in examples/traces/ is its output, and its conversations share leading blocks. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseTrace, reusableTokens } from "./index.ts";
import { syntheticMooncakeTrace } from "./synthetic.ts";

const EXAMPLE = join(import.meta.dirname, "..", "..", "..", "..", "examples", "traces", "synthetic-mooncake.jsonl");

describe("syntheticMooncakeTrace", () => {
  it("is the example trace, byte for byte (run `npm run example-trace` after changing it)", () => {
    expect(readFileSync(EXAMPLE, "utf8")).toBe(syntheticMooncakeTrace());
  });

  it("reads as a Mooncake trace whose hash_ids allow part of its prompt tokens from a cache", () => {
    const { requests } = parseTrace(syntheticMooncakeTrace(), "mooncake", "synthetic");
    expect(requests).toHaveLength(200);
    const reusable = reusableTokens(requests, 512).reduce((a, b) => a + b, 0);
    const prompt = requests.reduce((a, r) => a + r.inputTokens, 0);
    expect(reusable / prompt).toBeGreaterThan(0.3);
    expect(reusable / prompt).toBeLessThan(0.95);
  });
});
