import { describe, expect, it } from "vitest";
import { CHARS_PER_TOKEN, promptFor } from "./index.ts";

describe("promptFor", () => {
  const base = { runId: "ab12cd34", level: 8, promptTokens: 150 };

  it("starts with the request index, then the level, then the run id", () => {
    const prompt = promptFor({ ...base, index: 17 });
    expect(prompt.startsWith("17 at level 8 of run ab12cd34")).toBe(true);
    expect(promptFor({ ...base, index: 3, warmup: true }).startsWith("w3 at level 8 of run ab12cd34")).toBe(true);
  });

  it("gives requests of one run no common leading text", () => {
    const prompts = [
      ...Array.from({ length: 64 }, (_, index) => promptFor({ ...base, index })),
      ...Array.from({ length: 64 }, (_, index) => promptFor({ ...base, level: 16, index: index + 1 })),
    ];
    // Requests with different indexes differ in their first characters; same index at another level differs right after it.
    expect(promptFor({ ...base, index: 1 })[0]).not.toBe(promptFor({ ...base, index: 2 })[0]);
    expect(new Set(prompts).size).toBe(prompts.length);
    const a = promptFor({ ...base, index: 5 });
    const b = promptFor({ ...base, level: 16, index: 5 });
    const common = [...a].findIndex((c, i) => c !== b[i]);
    expect(common).toBeLessThanOrEqual("5 at level 1".length);
  });

  it("is deterministic and about promptTokens long", () => {
    const prompt = promptFor({ ...base, index: 4 });
    expect(promptFor({ ...base, index: 4 })).toBe(prompt);
    expect(prompt.length).toBeGreaterThan(150 * CHARS_PER_TOKEN * 0.9);
    expect(prompt.length).toBeLessThan(150 * CHARS_PER_TOKEN * 1.1);
  });
});
