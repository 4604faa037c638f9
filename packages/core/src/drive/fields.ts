/**
 * @module Config field schemas shared by the config file and the kinds' own config members: a
 * positive number, a strictly ascending list, an open loop's seed and in-flight bound.
 */
import { z } from "zod";

/** A price, a rate or a time that must be above zero. */
export const Positive = z.number({ error: "must be a number" }).positive("must be a positive number");

/** A refinement naming every entry of a list of `what` that does not rise above the one before it. */
export const strictlyAscending = (what: string) => (values: number[], ctx: z.RefinementCtx) => {
  values.forEach((value, i) => {
    const previous = values[i - 1];
    if (previous !== undefined && value <= previous)
      ctx.addIssue({
        code: "custom",
        path: [i],
        input: value,
        message: `${what} must be strictly ascending: ${value} follows ${previous}`,
      });
  });
};

/** Seed of a schedule's gaps: the same seed gives the same schedule. */
export const Seed = z.number().int().nonnegative().default(1).meta({
  description:
    "Seeds the gaps between sends (poisson, gamma), a whole number, 0 or more: the same seed gives the same schedule. Default 1.",
});

/** Requests in flight at most; a send due past it waits, and the level is invalid. */
export const MaxInFlight = z.number().int().positive().max(4096).default(256).meta({
  description:
    "Requests in flight at most, a whole number from 1 to 4096; a send due past it waits, and the level is invalid (max_in_flight). Default 256.",
});
