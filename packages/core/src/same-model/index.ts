/**
 * @module Same model? (docs/methodology.md, same model): each route of a model is compared with the
 * model's reference route on their canary completions, by a two-sample test prompt by prompt: the
 * maximum mean discrepancy (MMD) with a Hamming kernel (position-wise word equality), its p-value by
 * permutations within each prompt (seeded), Holm's correction across the model's routes, `differs`
 * below `SAME_MODEL_ALPHA`. Apart from it, a reported prompt token count other than the reference's
 * for the same prompt means another tokenizer or chat template: `differs`, for that reason. Pure:
 * run documents in, verdicts out.
 */
import { z } from "zod";
import { modelKeyOf } from "../config/index.ts";
import { seededRandom } from "../random/index.ts";
import type { Canary } from "../run/index.ts";
import { holm } from "../stats/index.ts";

/** Holm's correction, where the same-model test's callers have always found it. */
export { holm } from "../stats/index.ts";
export { CANARY_PROMPTS, CANARY_PROMPTS_V1, type CanaryPrompt, type CanaryPromptSet } from "./prompts.ts";

/** A route differs when its Holm-adjusted p-value is below this: the test's false-alarm rate per model. */
export const SAME_MODEL_ALPHA = 0.01;
/** Permutations per test: the smallest p-value is 1 / 2001, so Holm over up to 19 routes can still reach 0.01. */
export const SAME_MODEL_PERMUTATIONS = 2000;
/** Completions each side needs on the prompts both answered (half of the default 10 x 10). */
export const SAME_MODEL_MIN_SAMPLES = 50;
/** Word positions the kernel compares: the canary's default maxTokens. */
export const SAME_MODEL_POSITIONS = 32;
/** Seed of the permutations (mixed with each route's id, so one route's verdict does not depend on the others' order). */
export const SAME_MODEL_SEED = 1;

/** The verdict on one route: `same` means no difference detected at this sample size, not proof of sameness. */
export const SameModelVerdict = z.enum(["same", "differs", "no-reference", "too-few-samples"]);
export type SameModelVerdict = z.infer<typeof SameModelVerdict>;

/**
 * Why the verdict is what it is, as a code: `reference` (the route is the reference), `no_difference`,
 * `distribution` (the test found a difference), `tokenizer` (another prompt token count), `no_reference`
 * (no route of the model is marked reference), `no_reference_canary` (the reference has no canary run),
 * `no_canary` (this route has none), `prompt_set` (the two ran different prompt sets), `too_few_samples`.
 */
export const SameModelCause = z.enum([
  "reference",
  "no_difference",
  "distribution",
  "tokenizer",
  "no_reference",
  "no_reference_canary",
  "no_canary",
  "prompt_set",
  "too_few_samples",
]);
export type SameModelCause = z.infer<typeof SameModelCause>;

/** A route's same-model verdict, as `data/index.json` carries it per target (`sameModel`). */
export const SameModel = z.object({
  /** The target id of the model's reference route; null when the model has none. */
  reference: z.string().nullable(),
  verdict: SameModelVerdict,
  /** The test's p-value after Holm's correction across the model's routes; null when not tested. */
  pValue: z.number().min(0).max(1).nullable(),
  /** The verdict in one sentence for people. */
  reason: z.string(),
  /** This route's ok canary completions that entered the test (on prompts both routes answered). */
  samples: z.number().int().nonnegative(),
  /** The reason as a code. */
  cause: SameModelCause,
  /** The p-value before Holm's correction; null when not tested. */
  rawPValue: z.number().min(0).max(1).nullable(),
  /** The reference's ok canary completions that entered the test. */
  referenceSamples: z.number().int().nonnegative(),
  /** The run whose canary was judged, and the reference's; null when there was none. */
  runId: z.string().nullable(),
  referenceRunId: z.string().nullable(),
});
export type SameModel = z.infer<typeof SameModel>;

/** What the test reads of a target's latest run with a canary: a `RunDocument` fits. */
export interface SameModelRun {
  targetId: string;
  model: string;
  modelKey?: string | null;
  /** The target is its model's reference route. */
  reference?: boolean;
  runId?: string;
  /** The run's canary; absent or null when it has none. */
  canary?: Canary | null;
}

export interface SameModelOptions {
  /** Default `SAME_MODEL_ALPHA`. */
  alpha?: number;
  /** Default `SAME_MODEL_PERMUTATIONS`. */
  permutations?: number;
  /** Default `SAME_MODEL_SEED`. */
  seed?: number;
  /** Default `SAME_MODEL_MIN_SAMPLES`. */
  minSamples?: number;
  /** Default `SAME_MODEL_POSITIONS`. */
  positions?: number;
}

/**
 * The tokens the kernel compares: the text's words (split at white space). Words, not the stream's
 * chunks, because routes chunk alike text differently (one token per chunk, or several), while a
 * text splits the same way whoever sent it; a changed distribution changes the words too.
 */
export function canaryTokens(text: string): string[] {
  return text.split(/\s+/).filter((w) => w.length > 0);
}

/** One prompt's completions from both sides, as token lists. */
export interface Stratum {
  reference: readonly (readonly string[])[];
  route: readonly (readonly string[])[];
}

/** The end of a completion, padded to `positions`: two completions that both ended there agree. */
const END = -1;

/** A stratum's Gram matrix of Hamming similarities (equal positions out of `positions`), pooled reference first. */
function gram(stratum: Stratum, positions: number): { k: Int32Array; n: number; m: number } {
  const ids = new Map<string, number>();
  const encode = (tokens: readonly string[]) => {
    const out = new Int32Array(positions).fill(END);
    for (let i = 0; i < Math.min(positions, tokens.length); i++) {
      const t = tokens[i] as string;
      let id = ids.get(t);
      if (id === undefined) {
        id = ids.size;
        ids.set(t, id);
      }
      out[i] = id;
    }
    return out;
  };
  const pooled = [...stratum.reference, ...stratum.route].map(encode);
  const size = pooled.length;
  const k = new Int32Array(size * size);
  for (let a = 0; a < size; a++)
    for (let b = a + 1; b < size; b++) {
      const x = pooled[a] as Int32Array;
      const y = pooled[b] as Int32Array;
      let same = 0;
      for (let i = 0; i < positions; i++) if (x[i] === y[i]) same++;
      k[a * size + b] = same;
    }
  return { k, n: stratum.reference.length, m: stratum.route.length };
}

/** The unbiased MMD² of one stratum under a labelling (true: reference side), kernel counts over `positions`. */
function mmd(k: Int32Array, labels: Uint8Array, n: number, m: number, positions: number): number {
  const size = n + m;
  let xx = 0;
  let yy = 0;
  let xy = 0;
  for (let a = 0; a < size; a++) {
    const la = labels[a];
    for (let b = a + 1; b < size; b++) {
      const v = k[a * size + b] as number;
      if (la !== labels[b]) xy += v;
      else if (la) xx += v;
      else yy += v;
    }
  }
  return ((2 * xx) / (n * (n - 1)) + (2 * yy) / (m * (m - 1)) - (2 * xy) / (n * m)) / positions;
}

/**
 * The MMD permutation test over strata (prompts), each with at least 2 completions a side: the
 * statistic is the sum over prompts of the unbiased MMD² with the Hamming kernel; each permutation
 * reshuffles the two sides' labels within every prompt. The p-value is (1 + permutations at least as
 * large) / (1 + permutations), never 0. Seeded: the same input and seed give the same p-value.
 */
export function mmdPermutationTest(
  strata: readonly Stratum[],
  options: { permutations?: number; seed?: number; positions?: number } = {},
): { statistic: number; pValue: number } {
  const permutations = options.permutations ?? SAME_MODEL_PERMUTATIONS;
  const positions = options.positions ?? SAME_MODEL_POSITIONS;
  const random = seededRandom(options.seed ?? SAME_MODEL_SEED);
  const grams = strata
    .filter((s) => s.reference.length >= 2 && s.route.length >= 2)
    .map((s) => {
      const g = gram(s, positions);
      const labels = new Uint8Array(g.n + g.m).fill(1, 0, g.n);
      return { ...g, labels };
    });
  let statistic = 0;
  for (const g of grams) statistic += mmd(g.k, g.labels, g.n, g.m, positions);
  // Ties within floating-point noise of the observed value count as at least as large.
  const bar = statistic - 1e-12;
  let atLeast = 0;
  for (let p = 0; p < permutations; p++) {
    let value = 0;
    for (const g of grams) {
      const labels = g.labels;
      for (let i = labels.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        const t = labels[i] as number;
        labels[i] = labels[j] as number;
        labels[j] = t;
      }
      value += mmd(g.k, labels, g.n, g.m, positions);
    }
    if (value >= bar) atLeast++;
  }
  return { statistic, pValue: (1 + atLeast) / (1 + permutations) };
}

/** FNV-1a of a target id, to give each route its own permutation stream. */
function hashId(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The ok completions of a canary, grouped by prompt id: their tokens and reported prompt token counts. */
function byPrompt(canary: Canary): Map<string, { tokens: string[][]; promptTokens: number[] }> {
  const groups = new Map<string, { tokens: string[][]; promptTokens: number[] }>();
  for (const c of canary.completions) {
    if (c.outcome !== "ok") continue;
    const g = groups.get(c.promptId) ?? { tokens: [], promptTokens: [] };
    g.tokens.push(canaryTokens(c.text));
    if (c.promptTokens !== null) g.promptTokens.push(c.promptTokens);
    groups.set(c.promptId, g);
  }
  return groups;
}

/** The most common value (the smallest of equals); null for none. */
function mode(values: readonly number[]): number | null {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: number | null = null;
  for (const [v, n] of counts)
    if (best === null || n > (counts.get(best) ?? 0) || (n === counts.get(best) && v < best)) best = v;
  return best;
}

const okCount = (canary: Canary) => canary.completions.filter((c) => c.outcome === "ok").length;

/** A route compared with the reference, before Holm's correction. */
interface Compared {
  samples: number;
  referenceSamples: number;
  rawPValue: number;
  /** The first prompt whose reported prompt tokens differ: the tokenizer reason. */
  tokenizer: { promptId: string; route: number; reference: number } | null;
}

/** One route's canary against the reference's: the strata, the test, the tokenizer check; or why it cannot be tested. */
function compare(
  route: SameModelRun & { canary: Canary },
  reference: SameModelRun & { canary: Canary },
  options: Required<SameModelOptions>,
): Compared | { cause: "prompt_set" | "too_few_samples"; reason: string; samples: number; referenceSamples: number } {
  const mine = route.canary;
  const theirs = reference.canary;
  if (mine.promptSet !== theirs.promptSet)
    return {
      cause: "prompt_set",
      reason: `this route's canary used prompt set ${mine.promptSet}, the reference's ${theirs.promptSet}: nothing to compare`,
      samples: 0,
      referenceSamples: 0,
    };
  const routeGroups = byPrompt(mine);
  const referenceGroups = byPrompt(theirs);
  const strata: Stratum[] = [];
  let tokenizer: Compared["tokenizer"] = null;
  for (const [promptId, g] of [...routeGroups].sort(([a], [b]) => a.localeCompare(b))) {
    const r = referenceGroups.get(promptId);
    if (!r) continue;
    const routeCount = mode(g.promptTokens);
    const referenceCount = mode(r.promptTokens);
    if (tokenizer === null && routeCount !== null && referenceCount !== null && routeCount !== referenceCount)
      tokenizer = { promptId, route: routeCount, reference: referenceCount };
    if (g.tokens.length >= 2 && r.tokens.length >= 2) strata.push({ reference: r.tokens, route: g.tokens });
  }
  const samples = strata.reduce((sum, s) => sum + s.route.length, 0);
  const referenceSamples = strata.reduce((sum, s) => sum + s.reference.length, 0);
  if (samples < options.minSamples || referenceSamples < options.minSamples)
    return {
      cause: "too_few_samples",
      reason: `${samples} completions of this route and ${referenceSamples} of the reference on the prompts both answered; the test needs ${options.minSamples} a side`,
      samples,
      referenceSamples,
    };
  const { pValue } = mmdPermutationTest(strata, {
    permutations: options.permutations,
    seed: (options.seed ^ hashId(route.targetId)) >>> 0,
    positions: options.positions,
  });
  return { samples, referenceSamples, rawPValue: pValue, tokenizer };
}

const formatP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toPrecision(2));

/**
 * The same-model verdict of every target, from the latest run with a canary of each (any mix of
 * models: they are grouped by model key). Per model, the route whose run is marked `reference`
 * (the first by id, should several be) is the reference; each other route is tested against it,
 * and the p-values of the model's tested routes are corrected together (Holm). Targets without a
 * run can be given with no canary. Returns a verdict per target id.
 */
export function sameModelVerdicts(
  runs: readonly SameModelRun[],
  options: SameModelOptions = {},
): Record<string, SameModel> {
  const o: Required<SameModelOptions> = {
    alpha: options.alpha ?? SAME_MODEL_ALPHA,
    permutations: options.permutations ?? SAME_MODEL_PERMUTATIONS,
    seed: options.seed ?? SAME_MODEL_SEED,
    minSamples: options.minSamples ?? SAME_MODEL_MIN_SAMPLES,
    positions: options.positions ?? SAME_MODEL_POSITIONS,
  };
  const models = new Map<string, SameModelRun[]>();
  for (const run of runs) {
    const key = modelKeyOf(run);
    models.set(key, [...(models.get(key) ?? []), run]);
  }
  const out: Record<string, SameModel> = {};
  for (const [modelKey, routes] of models) Object.assign(out, modelVerdicts(modelKey, routes, o));
  return out;
}

/** The verdicts of one model's routes. */
function modelVerdicts(
  modelKey: string,
  routes: readonly SameModelRun[],
  o: Required<SameModelOptions>,
): Record<string, SameModel> {
  const reference = [...routes].filter((r) => r.reference).sort((a, b) => a.targetId.localeCompare(b.targetId))[0];
  const out: Record<string, SameModel> = {};
  const base = (run: SameModelRun) => ({
    reference: reference?.targetId ?? null,
    pValue: null,
    rawPValue: null,
    samples: run.canary ? okCount(run.canary) : 0,
    referenceSamples: 0,
    runId: run.canary ? (run.runId ?? null) : null,
    referenceRunId: reference?.canary ? (reference.runId ?? null) : null,
  });
  const tested: { run: SameModelRun; compared: Compared }[] = [];
  for (const run of routes) {
    if (run === reference) {
      out[run.targetId] = {
        ...base(run),
        verdict: "same",
        cause: "reference",
        reason: "the model's reference route: its other routes are compared with it",
      };
      continue;
    }
    if (!reference) {
      out[run.targetId] = {
        ...base(run),
        verdict: "no-reference",
        cause: "no_reference",
        reason: `no route of ${modelKey} is marked as its reference (targets[].reference)`,
      };
      continue;
    }
    if (!reference.canary) {
      out[run.targetId] = {
        ...base(run),
        verdict: "no-reference",
        cause: "no_reference_canary",
        reason: `the reference route ${reference.targetId} has no run with a canary yet`,
      };
      continue;
    }
    if (!run.canary) {
      out[run.targetId] = {
        ...base(run),
        verdict: "too-few-samples",
        cause: "no_canary",
        reason: "this route has no run with a canary yet",
      };
      continue;
    }
    const compared = compare(
      run as SameModelRun & { canary: Canary },
      reference as SameModelRun & { canary: Canary },
      o,
    );
    if ("cause" in compared) {
      out[run.targetId] = {
        ...base(run),
        verdict: "too-few-samples",
        cause: compared.cause,
        reason: compared.reason,
        samples: compared.samples,
        referenceSamples: compared.referenceSamples,
      };
      continue;
    }
    tested.push({ run, compared });
  }
  const adjusted = holm(tested.map((t) => t.compared.rawPValue));
  const family = tested.length === 1 ? "" : ` after Holm's correction over ${tested.length} routes`;
  tested.forEach(({ run, compared }, i) => {
    const pValue = adjusted[i] as number;
    const common = {
      ...base(run),
      pValue,
      rawPValue: compared.rawPValue,
      samples: compared.samples,
      referenceSamples: compared.referenceSamples,
    };
    const sizes = `${compared.samples} completions against the reference's ${compared.referenceSamples}`;
    const t = compared.tokenizer;
    if (t)
      out[run.targetId] = {
        ...common,
        verdict: "differs",
        cause: "tokenizer",
        reason: `reports ${t.route} prompt tokens for canary prompt ${t.promptId} where the reference reports ${t.reference}: another tokenizer or chat template`,
      };
    else if (pValue < o.alpha)
      out[run.targetId] = {
        ...common,
        verdict: "differs",
        cause: "distribution",
        reason: `its completions differ from the reference's: p = ${formatP(pValue)}${family}, ${sizes}`,
      };
    else
      out[run.targetId] = {
        ...common,
        verdict: "same",
        cause: "no_difference",
        reason: `no difference detected at this sample size: p = ${formatP(pValue)}${family}, ${sizes}`,
      };
  });
  return out;
}
