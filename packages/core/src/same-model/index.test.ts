import { describe, expect, it } from "vitest";
import { drawnCanary } from "./canary.fixture.ts";
import { canaryTokens, holm, mmdPermutationTest, type SameModelRun, sameModelVerdicts } from "./index.ts";

const PERTURBED = { rankShiftProbability: 0.5 };

/** The reference and one route of model `m`, each a seeded draw from the known word distribution. */
function pair(route: Omit<SameModelRun, "targetId" | "model">, seed: number): SameModelRun[] {
  return [
    { targetId: "ref", model: "m", reference: true, runId: "r0", canary: drawnCanary({ seed }) },
    { targetId: "route", model: "m", runId: "r1", ...route },
  ];
}

describe("the same-model test on the known word distribution (10 prompts x 10 completions of 32 words a side)", () => {
  // A valid test at alpha 0.01 calls a twin `differs` in 1 % of trials: 99 of 100 `same` expected,
  // with a standard error of 1 (sqrt(100 x 0.01 x 0.99)); the bound of 95 is 4 standard errors below.
  it("calls a faithful twin of the reference `same` in at least 95 of 100 seeded trials", () => {
    let same = 0;
    for (let trial = 0; trial < 100; trial++) {
      const runs = pair({ canary: drawnCanary({ seed: 20_000 + trial }) }, 10_000 + trial);
      if (sameModelVerdicts(runs).route?.verdict === "same") same++;
    }
    expect(same).toBeGreaterThanOrEqual(95);
  });

  // Measured 100 of 100 with these seeds; with power p the count's standard error is sqrt(100 p (1 - p)),
  // so at the 99 % power the bound asks for, 95 would be 4 standard errors below 99.
  it("calls a copy whose drawn words move one rank with probability 0.5 `differs` in at least 95 of 100", () => {
    let differs = 0;
    for (let trial = 0; trial < 100; trial++) {
      const runs = pair({ canary: drawnCanary({ seed: 30_000 + trial, distortion: PERTURBED }) }, 10_000 + trial);
      const verdict = sameModelVerdicts(runs).route;
      if (verdict?.verdict === "differs" && verdict.cause === "distribution") differs++;
    }
    expect(differs).toBeGreaterThanOrEqual(95);
  });

  it("calls a copy that reports 1.25x the prompt tokens `differs`, for the tokenizer", () => {
    const runs = pair({ canary: drawnCanary({ seed: 2, promptTokensScale: 1.25 }) }, 1);
    const verdict = sameModelVerdicts(runs).route;
    expect(verdict).toMatchObject({ verdict: "differs", cause: "tokenizer", reference: "ref", samples: 100 });
    expect(verdict?.reason).toMatch(/reports \d+ prompt tokens for canary prompt p01 where the reference reports \d+/);
  });
});

describe("sameModelVerdicts", () => {
  it("calls the reference itself `same`, with no p-value", () => {
    const verdicts = sameModelVerdicts(pair({ canary: drawnCanary({ seed: 2 }) }, 1));
    expect(verdicts.ref).toMatchObject({ verdict: "same", cause: "reference", pValue: null, samples: 100 });
    expect(verdicts.route).toMatchObject({ reference: "ref", runId: "r1", referenceRunId: "r0", samples: 100 });
    expect(verdicts.route?.referenceSamples).toBe(100);
  });

  it("says no-reference when no route of the model is marked, or the reference has no canary", () => {
    const none = sameModelVerdicts([{ targetId: "a", model: "x/m", canary: drawnCanary({ seed: 1 }) }]);
    expect(none.a).toMatchObject({ verdict: "no-reference", cause: "no_reference", reference: null });
    const silent = sameModelVerdicts([
      { targetId: "ref", model: "m", reference: true },
      { targetId: "a", model: "m", canary: drawnCanary({ seed: 1 }) },
    ]);
    expect(silent.a).toMatchObject({ verdict: "no-reference", cause: "no_reference_canary", reference: "ref" });
  });

  it("says too-few-samples below 50 completions a side, without a canary, and across prompt sets", () => {
    const few = sameModelVerdicts(pair({ canary: drawnCanary({ seed: 2, samplesPerPrompt: 4 }) }, 1));
    expect(few.route).toMatchObject({ verdict: "too-few-samples", cause: "too_few_samples", samples: 40 });
    const failed = drawnCanary({ seed: 2 });
    for (const c of failed.completions.slice(0, 60)) c.outcome = "timeout";
    expect(sameModelVerdicts(pair({ canary: failed }, 1)).route).toMatchObject({ verdict: "too-few-samples" });
    expect(sameModelVerdicts(pair({}, 1)).route).toMatchObject({ verdict: "too-few-samples", cause: "no_canary" });
    const other = { ...drawnCanary({ seed: 2 }), promptSet: "canary-v2" };
    expect(sameModelVerdicts(pair({ canary: other }, 1)).route).toMatchObject({ cause: "prompt_set" });
  });

  it("corrects a model's routes together (Holm) and keeps models apart", () => {
    const runs: SameModelRun[] = [
      { targetId: "ref", model: "m", reference: true, canary: drawnCanary({ seed: 1 }) },
      { targetId: "bent", model: "m", canary: drawnCanary({ seed: 2, distortion: PERTURBED }) },
      { targetId: "twin", model: "m", canary: drawnCanary({ seed: 3 }) },
      { targetId: "other", model: "n", canary: drawnCanary({ seed: 4 }) },
    ];
    const verdicts = sameModelVerdicts(runs);
    expect(verdicts.bent).toMatchObject({ verdict: "differs", cause: "distribution" });
    expect(verdicts.twin).toMatchObject({ verdict: "same", cause: "no_difference" });
    expect(verdicts.bent?.pValue).toBe(Math.min(1, 2 * (verdicts.bent?.rawPValue ?? 1)));
    expect(verdicts.other).toMatchObject({ verdict: "no-reference" });
    expect(verdicts.twin?.reason).toMatch(/after Holm's correction over 2 routes/);
  });

  it("gives the same verdicts whatever the routes' order (each route has its own permutations)", () => {
    const runs: SameModelRun[] = [
      { targetId: "ref", model: "m", reference: true, canary: drawnCanary({ seed: 1 }) },
      { targetId: "a", model: "m", canary: drawnCanary({ seed: 2 }) },
      { targetId: "b", model: "m", canary: drawnCanary({ seed: 3 }) },
    ];
    expect(sameModelVerdicts([...runs].reverse())).toEqual(sameModelVerdicts(runs));
  });
});

describe("the statistics", () => {
  it("splits a completion into its words", () => {
    expect(canaryTokens(" The sea,  at\nnight ")).toEqual(["The", "sea,", "at", "night"]);
  });

  it("adjusts p-values the way Holm's step-down does", () => {
    expect(holm([0.01, 0.04, 0.03, 0.005])).toEqual([0.03, 0.06, 0.06, 0.02]);
    expect(holm([0.5, 0.9])).toEqual([1, 1]);
    expect(holm([])).toEqual([]);
  });

  it("gives p = 1 for identical sides and its smallest p for sides that never agree, seeded", () => {
    const same = [
      ["a", "b"],
      ["a", "b"],
      ["a", "b"],
    ];
    expect(mmdPermutationTest([{ reference: same, route: same }], { permutations: 99 }).pValue).toBe(1);
    const apart = { reference: [["a"], ["a"], ["a"]], route: [["b"], ["b"], ["b"]] };
    // 6 completions split 3 / 3: 1 labelling in 20 (and its mirror) is the observed one.
    const test = mmdPermutationTest([apart, apart, apart], { permutations: 999, seed: 7 });
    expect(test.pValue).toBeLessThan(0.01);
    expect(mmdPermutationTest([apart, apart, apart], { permutations: 999, seed: 7 })).toEqual(test);
  });
});
