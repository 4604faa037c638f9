import { describe, expect, it } from "vitest";
import { CHARS_PER_TOKEN, PromptSizer, promptFor } from "./index.ts";

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

describe("prompt sizing", () => {
  const base = { runId: "ab12cd34", level: 1, index: 0 };

  it("sizes a prompt with the characters per token it is given", () => {
    const four = promptFor({ ...base, promptTokens: 4000 });
    const six = promptFor({ ...base, promptTokens: 4000, charsPerToken: 6 });
    expect(six.length / four.length).toBeCloseTo(1.5, 2);
  });

  it("learns the endpoint's characters per token: the median of what it counted", () => {
    const sizer = new PromptSizer();
    expect(sizer.charsPerToken).toBe(CHARS_PER_TOKEN);
    sizer.observe(6000, 1000);
    sizer.observe(6000, null);
    sizer.observe(6200, 1000);
    sizer.observe(9000, 1000);
    expect(sizer.charsPerToken).toBe(6.2);
  });

  it("comes within 5 % of promptTokens once it has seen one answer, at 100 to 32,000 tokens", () => {
    // An endpoint that counts one token per 5.7 characters (whole words), plus a chat template of 12.
    const counted = (prompt: string) => Math.ceil(prompt.length / 5.7) + 12;
    for (const promptTokens of [100, 1000, 4000, 32_000]) {
      const sizer = new PromptSizer();
      const first = promptFor({ ...base, promptTokens, charsPerToken: sizer.charsPerToken });
      sizer.observe(first.length, counted(first));
      const next = promptFor({ ...base, index: 1, promptTokens, charsPerToken: sizer.charsPerToken });
      expect(Math.abs(counted(next) / promptTokens - 1)).toBeLessThan(0.05);
    }
  });
});
