/**
 * @module The search form of a level list (docs/config.md#searched-levels): in place of a ladder,
 * `{ "search": { "from", "to", "resolution" } }` asks the sweep to find where the SLO stops being met
 * (and the knee) itself. The closed loop's `concurrency` (whole users) and the open loop's
 * `ratesPerSecond` (requests/s) take it; the kinds and the config share this schema.
 */
import { z } from "zod";

/** The confidence of a probed level's SLO decision when the search names none. */
export const DEFAULT_SEARCH_CONFIDENCE = 0.95;

/** A probed level may draw this many times `requestsPerLevel` before it is `undecided`, when the search names no cap. */
export const DEFAULT_SEARCH_CAP_FACTOR = 4;

/** The search's settings, as the config gives them (optional fields not filled in). */
export interface LevelSearchSettings {
  from: number;
  to: number;
  resolution: number;
  confidence?: number;
  maxRequestsPerLevel?: number;
  maxRequests?: number;
}

/** A level list given as a search. */
export interface LevelSearch {
  search: LevelSearchSettings;
}

/**
 * The search form for an axis: `whole` for users (from and to whole numbers up to `max`), else for
 * rates (positive numbers). `from` above `to` and a resolution outside (0, 1] are problems at their path.
 */
export function levelSearchSchema(whole: boolean, unit: string, max: number) {
  const bound = (what: string) =>
    (whole ? z.number().int().positive().max(max) : z.number().positive().max(max)).meta({
      description: `${what}, ${unit}, ${whole ? `a whole number from 1 to ${max}` : `positive, at most ${max}`}.`,
    });
  return z.strictObject({
    search: z
      .strictObject({
        from: bound("The first level the search runs; it doubles from here to bracket the answer. Required"),
        to: bound("The highest level the search may run. Required"),
        resolution: z
          .number()
          .gt(0, "must be above 0 (the answer's relative width)")
          .max(1, "must be at most 1 (the answer's relative width)")
          .meta({
            description:
              "The answer's relative width, in (0, 1]: the search stops when its bracket [lo, hi] has hi <= lo x (1 + resolution)" +
              (whole ? ", or hi = lo + 1 where that is wider (whole users)" : "") +
              ". Required.",
          }),
        confidence: z.number().gt(0.5).lt(1).optional().meta({
          description:
            "The confidence of each probed level's SLO decision, between 0.5 and 1 (exclusive). Default 0.95.",
        }),
        maxRequestsPerLevel: z.number().int().positive().optional().meta({
          description:
            "Measured requests a probed level may draw before it is undecided, a positive whole number, at least requestsPerLevel. Default 4 x requestsPerLevel.",
        }),
        maxRequests: z.number().int().positive().optional().meta({
          description:
            "Requests the whole search may send, warm-ups included, a positive whole number: at it the search stops with the brackets it has (stop `budget`). Default: what the doubling ladder from..to sends at requestsPerLevel.",
        }),
      })
      .superRefine((search, ctx) => {
        if (search.from > search.to)
          ctx.addIssue({
            code: "custom",
            path: ["from"],
            message: `must be at most to (${search.to}): the search runs from low to high`,
          });
      })
      .meta({
        description: `Search for the levels instead of listing them: from, to (${unit}), resolution, and optionally confidence, maxRequestsPerLevel and maxRequests.`,
      }),
  });
}

/** A level list's ladder: its levels, none for a search (whose levels the sweep finds as it goes). */
export function ladderOf(levels: number[] | LevelSearch): number[] {
  return isLevelSearch(levels) ? [] : levels;
}

/** A level list's search settings; null for a ladder. */
export function searchOf(levels: number[] | LevelSearch): LevelSearchSettings | null {
  return isLevelSearch(levels) ? levels.search : null;
}

/** True when a level list is a search, not a ladder. */
export function isLevelSearch(levels: unknown): levels is LevelSearch {
  return typeof levels === "object" && levels !== null && !Array.isArray(levels) && "search" in levels;
}
