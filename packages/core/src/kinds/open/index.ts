/**
 * @module The open loop (docs/config.md#arrivals): requests sent at the times of a seeded schedule
 * (Poisson: exponential gaps; gamma: gaps of shape `burstiness`; both of mean 1 / rate), never waiting
 * on completions, at most `maxInFlight` at once; a level per rate of `arrival.ratesPerSecond`. Its
 * config members, levels, run-document load, words, gaps and driver.
 */
import { z } from "zod";
import type { DriveSpec, LevelDriver } from "../../drive/driver.ts";
import { MaxInFlight, Positive, Seed, strictlyAscending } from "../../drive/fields.ts";
import { type LoadKind, NO_INDEX_FIGURES, type NoIndexFields } from "../../drive/kind.ts";
import { scheduledLevelTiming } from "../../drive/plan.ts";
import { runSchedule, ScheduleFigures, scheduleFigures } from "../../drive/schedule.ts";
import { ladderOf, levelSearchSchema, searchOf } from "../../drive/search.ts";
import { number } from "../../drive/words.ts";
import { normal, seededRandom } from "../../random/index.ts";

/** Request rates of an open loop, requests/s, strictly ascending. */
const RatesPerSecond = z
  .union(
    [
      z
        .array(Positive, {
          error: "poisson arrivals need ratesPerSecond: an array of request rates, e.g. [1, 2, 4]",
        })
        .min(1)
        .superRefine(strictlyAscending("rates")),
      levelSearchSchema(false, "requests/s", 100_000),
    ],
    {
      error:
        'open arrivals need ratesPerSecond: an array of request rates, e.g. [1, 2, 4], or { "search": { "from", "to", "resolution" } }',
    },
  )
  .meta({
    description:
      'Request rates, requests/s, positive and strictly ascending: each is a level, sending at that rate for levelDurationSeconds or until requestsPerLevel were sent, never waiting on completions; or { "search": { from, to, resolution } }, rates the sweep finds itself (docs/config.md#searched-levels). Required.',
  });

/** `arrival: { "mode": "poisson", "ratesPerSecond": [...] }`: exponential gaps from a seeded generator. */
export const PoissonArrival = z.strictObject({
  mode: z.literal("poisson").meta({
    description:
      "poisson: an open loop sending on a seeded schedule of exponential gaps (mean 1 / rate), a level per rate.",
  }),
  ratesPerSecond: RatesPerSecond,
  seed: Seed,
  maxInFlight: MaxInFlight,
});

/** `arrival: { "mode": "gamma", "ratesPerSecond": [...], "burstiness": b }`: gamma gaps of shape b, mean 1 / rate. */
export const GammaArrival = z.strictObject({
  mode: z.literal("gamma").meta({
    description:
      "gamma: an open loop sending on a seeded schedule of gamma gaps of shape burstiness (mean 1 / rate), a level per rate.",
  }),
  ratesPerSecond: RatesPerSecond,
  /** Shape of the gamma gaps (mean 1/rate): 1 is Poisson, smaller is burstier (a gap's CV is 1/sqrt(burstiness)). */
  burstiness: z.number({ error: "gamma arrivals need burstiness: a positive number (1 is Poisson)" }).positive().meta({
    description:
      "Shape of the gamma gaps between sends (mean 1 / rate), a positive number: 1 is Poisson, smaller is burstier (a gap's coefficient of variation is 1 / sqrt(burstiness): 0.25 gives 2), as vLLM bench serve's --burstiness. Required.",
  }),
  seed: Seed,
  maxInFlight: MaxInFlight,
});
export type OpenArrivalConfig = z.infer<typeof PoissonArrival> | z.infer<typeof GammaArrival>;

/**
 * How an open loop's gaps are drawn: exponential (`poisson`), or gamma of shape `burstiness` and mean
 * 1 / rate (`gamma`; burstiness 1 is Poisson, smaller is burstier).
 */
export type OpenArrival = { arrival: "poisson" } | { arrival: "gamma"; burstiness: number };

/** An open level's load as the sweep drives it: seeded arrivals at a rate, at most `maxInFlight` at once. */
export type OpenLevelLoad = { kind: "open"; ratePerSecond: number; seed: number; maxInFlight: number } & OpenArrival;

/** The run document's open load: its arrivals and offered rate. */
export const OpenLoad = z.object({
  kind: z.literal("open"),
  /**
   * How sends are spaced: `poisson`, exponential gaps from a seeded generator; `gamma`, gamma gaps
   * of shape `burstiness` and mean 1 / rate from a seeded generator.
   */
  arrival: z.enum(["poisson", "gamma"]),
  /** The offered rate, requests/s. */
  ratePerSecond: z.number().positive(),
  /** Gamma arrivals: the gaps' shape (1 is Poisson, smaller is burstier; a gap's CV is 1 / sqrt(burstiness)). Absent for Poisson. */
  burstiness: z.number().positive().optional(),
});
export type OpenLoad = z.infer<typeof OpenLoad>;

/** An open loop's driver spec: one stream of the level's schedule (threads split it). */
export interface OpenSpec extends DriveSpec {
  kind: "open";
  /** How the gaps are drawn (see `arrivalGapsMs`). */
  spacing: OpenArrival;
  /** This stream's rate, requests/s (the level's, or a Poisson stream's share on a thread). */
  ratePerSecond: number;
  seed: number;
  /** The level's number: each level draws its own schedule. */
  level: number;
  /** Which of the level's independent streams (see `arrivalGapsMs`). */
  stream: number;
  /** On threads, gamma arrivals: this spec sends arrivals `at`, `at + every`, ... of the one schedule (null: all). */
  deal: { every: number; at: number } | null;
  maxInFlight: number;
}

/**
 * Stream chunks per second an open loop asks of the client at `ratePerSecond`: in steady state every
 * request's answer (`maxTokens`) arrives once per send, whatever the per-stream rate.
 */
export function openLoopChunksPerSecond(ratePerSecond: number, maxTokens: number, chunksPerToken = 1): number {
  return ratePerSecond * maxTokens * chunksPerToken;
}

/**
 * The gaps between sends at `ratePerSecond`, ms: exponential draws from a generator seeded by `seed`,
 * the level's number and the stream, so the same seed gives the same schedule and each level its own.
 * A level on T threads runs T streams (0 .. T-1) at rate / T each: merged, independent Poisson
 * streams are a Poisson stream at the summed rate.
 */
export function poissonGapsMs(ratePerSecond: number, seed: number, level: number, stream = 0): () => number {
  return arrivalGapsMs({ arrival: "poisson" }, ratePerSecond, seed, level, stream);
}

/**
 * A gamma draw of shape `shape` and scale 1 (mean `shape`), by Marsaglia and Tsang's method; a shape
 * under 1 is drawn at shape + 1 and scaled by U^(1/shape).
 */
export function gammaDraw(shape: number, random: () => number): number {
  if (shape < 1) return gammaDraw(shape + 1, random) * (1 - random()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/**
 * The gaps between sends at `ratePerSecond`, ms, from a generator seeded by `seed`, the level's number
 * and the stream (the same seed gives the same schedule, each level its own): exponential draws for
 * `poisson`; for `gamma`, gamma draws of shape `burstiness` and mean 1 / rate (a gap's coefficient of
 * variation is 1 / sqrt(burstiness)), never rescaled to hit the rate exactly.
 */
export function arrivalGapsMs(
  spacing: OpenArrival,
  ratePerSecond: number,
  seed: number,
  level: number,
  stream = 0,
): () => number {
  const random = seededRandom((seed * 1_000_003 + level * 7919 + stream * 104_729) >>> 0);
  if (spacing.arrival === "poisson") return () => (-Math.log(1 - random()) / ratePerSecond) * 1000;
  const { burstiness } = spacing;
  return () => (gammaDraw(burstiness, random) / (burstiness * ratePerSecond)) * 1000;
}

/**
 * Every `every`-th gap of `gapsMs` from the `at`-th on, summed: the share of one schedule a thread
 * sends when T threads deal its arrivals round (thread `at` sends arrivals at, at + T, ...). The first
 * call gives the thread's first send's offset from the schedule's start.
 */
export function dealtGapsMs(gapsMs: () => number, every: number, at: number): () => number {
  let first = true;
  return () => {
    let sum = 0;
    for (let i = first ? at : every; i > 0; i--) sum += gapsMs();
    first = false;
    return sum;
  };
}

/** The open-loop driver: sends on a seeded schedule (Poisson or gamma) at the level's rate, never waiting on completions. */
const openLoop: LevelDriver<OpenLevelLoad, OpenSpec> = {
  // One request at a time: an open loop's level number is no count of users.
  warmupWorkers: (_load, warmupRequests) => Math.min(1, warmupRequests),

  prepare: (load, facts) => ({
    kind: "open",
    spacing: load.arrival === "gamma" ? { arrival: "gamma", burstiness: load.burstiness } : { arrival: "poisson" },
    ratePerSecond: load.ratePerSecond,
    seed: load.seed,
    level: facts.level,
    stream: 0,
    deal: null,
    maxInFlight: load.maxInFlight,
  }),

  async drive(spec, loop) {
    const endMs = loop.start();
    const gaps = arrivalGapsMs(spec.spacing, spec.ratePerSecond, spec.seed, spec.level, spec.stream);
    // A dealt share of one schedule: its first send is due at its first arrival.
    const dealt = spec.deal ? dealtGapsMs(gaps, spec.deal.every, spec.deal.at) : null;
    const open = await runSchedule({
      counters: loop.counters,
      scheduler: loop.scheduler,
      signal: loop.signal,
      gapsMs: dealt ?? gaps,
      firstDueMs: dealt ? dealt() : 0,
      maxInFlight: spec.maxInFlight,
      durationMs: endMs - loop.scheduler.now(),
      send: loop.send,
      onResult: loop.onResult,
    });
    return { scheduleLagsMs: open.lagsMs, maxInFlightHit: open.maxInFlightHit };
  },

  // T independent Poisson streams at rate / T each are, merged, a Poisson stream at the rate. Merged
  // gamma streams are not a gamma stream: the T threads deal one schedule's arrivals round instead.
  split: (spec, parts) =>
    Array.from({ length: parts }, (_, i) => ({
      ...spec,
      maxInFlight: Math.max(1, Math.floor(spec.maxInFlight / parts)),
      ...(spec.spacing.arrival === "poisson"
        ? { ratePerSecond: spec.ratePerSecond / parts, stream: spec.stream * parts + i }
        : { deal: { every: (spec.deal?.every ?? 1) * parts, at: (spec.deal?.at ?? 0) + (spec.deal?.every ?? 1) * i } }),
    })),

  describe: (spec, record, window) => scheduleFigures(spec.ratePerSecond, spec.maxInFlight, record, window),
};

/** An open level's own figures (`level.open`): what its schedule sent (`ScheduleFigures`). */
export const OpenFigures = ScheduleFigures;
export type OpenFigures = ScheduleFigures;

export const open: LoadKind<
  { arrival: OpenArrivalConfig },
  OpenLevelLoad,
  OpenLoad,
  OpenSpec,
  OpenFigures,
  { schedule: ScheduleFigures },
  NoIndexFields,
  NoIndexFields
> = {
  kind: "open",
  document: OpenLoad,
  figures: { schema: OpenFigures, of: ({ schedule }) => schedule, schedule: (figures) => figures },
  index: NO_INDEX_FIGURES,
  axis: "rate",
  levels: (workload, { requestSeconds }) => {
    const { arrival } = workload;
    const spacing: OpenArrival =
      arrival.mode === "gamma" ? { arrival: "gamma", burstiness: arrival.burstiness } : { arrival: "poisson" };
    const duration = workload.levelDurationSeconds;
    const requests = duration === undefined ? (workload.requestsPerLevel ?? 0) : null;
    return ladderOf(arrival.ratesPerSecond).map((ratePerSecond, i) => ({
      load: { kind: "open", ...spacing, ratePerSecond, seed: arrival.seed, maxInFlight: arrival.maxInFlight },
      name: `rate ${ratePerSecond} requests/s${spacing.arrival === "gamma" ? ` (gamma, burstiness ${spacing.burstiness})` : ""}`,
      level: i + 1,
      // Sends for the fixed duration, or as long as `requestsPerLevel` take at the rate.
      ...scheduledLevelTiming(
        duration ?? (requests ?? 0) / ratePerSecond,
        requests,
        duration ?? null,
        workload,
        requestSeconds,
      ),
    }));
  },
  record: (load) =>
    load.arrival === "gamma"
      ? { kind: "open", arrival: "gamma", ratePerSecond: load.ratePerSecond, burstiness: load.burstiness }
      : { kind: "open", arrival: "poisson", ratePerSecond: load.ratePerSecond },
  position: (load) => load.ratePerSecond,
  words: (load) =>
    load.arrival === "gamma" && load.burstiness !== undefined
      ? `${load.ratePerSecond} req/s, burstiness ${load.burstiness}`
      : `${load.ratePerSecond} req/s`,
  // Poisson and gamma arrivals at one rate, or gamma at two burstinesses, are different traffic.
  same: (a, b) => a.arrival === b.arrival && a.burstiness === b.burstiness,
  users: () => null,
  chunksPerSecond: (load, _perStream, maxTokens, chunksPerToken) =>
    openLoopChunksPerSecond(load.ratePerSecond, maxTokens, chunksPerToken),
  // Its streams are as many as its rate keeps in flight: no bound.
  userLevels: () => null,
  search: ({ arrival }) => searchOf(arrival.ratesPerSecond),
  pinned: ({ arrival }, ratePerSecond) => ({ arrival: { ...arrival, ratesPerSecond: [ratePerSecond] } }),
  arrivalProblems: () => [],
  searchProblems: () => [],
  searchedIn: (layers) => layers.rates?.search === true,
  threadBound: () => Number.POSITIVE_INFINITY,
  summary: { knee: "kneeRequestsPerSecond", capacity: "capacityRequestsPerSecond" },
  expectsCache: false,
  offeredRate: (load) => load.ratePerSecond,
  // Its levels are rates: its headline is what it sustains and its knee in req/s, not single-stream and N.
  headline: (p) => `open loop: peak ${p.peak}, knee ${p.kneeRate}, sustains ${p.sustainsRate} req/s at the SLO`,
  reportLines: () => [],
  plan: {
    column: "rate",
    label: (load) => `${load.ratePerSecond}/s`,
    loop: ({ arrival }) =>
      `open loop (${arrival.mode === "gamma" ? "gamma" : "Poisson"} arrivals, warm-up one at a time)`,
    arrival: ({ arrival }) =>
      arrival.mode === "gamma"
        ? `, arrival gamma (burstiness ${arrival.burstiness}, seed ${arrival.seed}, maxInFlight ${arrival.maxInFlight})`
        : `, arrival poisson (seed ${arrival.seed}, maxInFlight ${arrival.maxInFlight})`,
    topLevel: (load, f) =>
      `${load.ratePerSecond} requests/s x ${f.maxTokens} tokens = ${f.chunks} (about ${number(load.ratePerSecond * f.expectedRequestSeconds, 1)} in flight)`,
    before: () => [],
    // Little's law: a rate keeps rate x request-duration requests in flight; at maxInFlight sends wait.
    after: (levels, { arrival }, expectedRequestSeconds) => {
      const inFlight = (load: OpenLevelLoad) => load.ratePerSecond * expectedRequestSeconds;
      const crowded = levels.filter((l) => inFlight(l.load) >= arrival.maxInFlight);
      if (crowded.length === 0) return [];
      return [
        `  maxInFlight: at ${crowded.map((l) => `${l.load.ratePerSecond}/s`).join(", ")} about ${crowded.map((l) => number(inFlight(l.load))).join(", ")} requests would be in flight, at or over ${arrival.maxInFlight}: expect those levels invalid (max_in_flight)`,
      ];
    },
  },
  driver: openLoop,
};
