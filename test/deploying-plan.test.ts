/**
 * @module docs/deploying.md's "Write the config" and "Check it", as a deployer runs them: the example
 * it copies, planned by the command it gives. Each sweep must fit the invocations a deployed run may
 * use (`DEFAULT_MAX_INVOCATIONS`, past which the run is stored partial), and the page's figure for that
 * default must be the code's. In this process (project `parallel`).
 */
import { readFileSync } from "node:fs";
import { DEFAULT_MAX_INVOCATIONS } from "@kneeboard/core/plan";
import { describe, expect, it } from "vitest";
import { kneeboardHere } from "./cli-harness.ts";

const PAGE = readFileSync(new URL("../docs/deploying.md", import.meta.url), "utf8");
const ROOT = new URL("../", import.meta.url).pathname;

/** The page's `cp examples/X FILE`: the example and the name it is copied to. */
const [, example, copy] = /^cp (examples\/\S+\.json) (\S+)$/m.exec(PAGE) ?? [];
/** The page's `npx kneeboard plan ...`, as arguments. */
const planArgs = /^npx kneeboard (plan .*)$/m.exec(PAGE)?.[1]?.split(/\s+/) ?? [];

describe("docs/deploying.md's plan of its example", () => {
  it("copies an example and plans the copy", () => {
    expect(example).toBeDefined();
    expect(planArgs).toEqual(["plan", "--config", copy]);
  });

  it("fits every sweep within the invocations a deployed run may use, with no warning", async () => {
    const args = planArgs.map((a) => (a === copy ? `${ROOT}${example}` : a));
    const result = await kneeboardHere(args, { OPENROUTER_API_KEY: "" });
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain(`a run may use ${DEFAULT_MAX_INVOCATIONS} invocations`);
    const fits = [
      ...result.out.matchAll(/^ {2}(\S+) \[\S+\]: expected [\d,]+ s, (fits one invocation|needs (\d+) invocations)/gm),
    ];
    const targets = (JSON.parse(readFileSync(`${ROOT}${example}`, "utf8")) as { targets: unknown[] }).targets;
    expect(fits).toHaveLength(targets.length);
    for (const [line, , , needs] of fits) expect(Number(needs ?? 1), line).toBeLessThanOrEqual(DEFAULT_MAX_INVOCATIONS);
    expect(result.out).not.toContain("warning:");
  });

  it("quotes plan's cost at 100 and 1,000 routes as plan computes it", async () => {
    const args = planArgs.map((a) => (a === copy ? `${ROOT}${example}` : a));
    const result = await kneeboardHere(args, { OPENROUTER_API_KEY: "" });
    const lines = result.out.split("\n").filter((l) => /^ {2}cost at [\d,]+ routes like these:/.test(l));
    expect(lines.map((l) => /cost at ([\d,]+) routes/.exec(l)?.[1])).toEqual(["100", "1,000"]);
    for (const line of lines) expect(PAGE).toContain(line);
  });

  it("gives the code's default for the invocations a run may use", () => {
    expect(PAGE).toContain(`(${DEFAULT_MAX_INVOCATIONS} by default,`);
    expect(PAGE).toMatch(new RegExp(`\\| \`KNEEBOARD_SWEEP_MAX_INVOCATIONS\` +\\| ${DEFAULT_MAX_INVOCATIONS} +\\|`));
    expect(PAGE).toContain(`(default ${DEFAULT_MAX_INVOCATIONS}) invocations per run`);
  });
});
