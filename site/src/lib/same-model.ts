/**
 * @module A route's same-model verdict (its canary's completions tested against its model's reference
 * route) in the words the pages use. `same` only ever means no difference was detected at this sample
 * size; a route that differs is marked beside its speed, never hidden.
 */
import type { SameModel } from "@kneeboard/core/same-model";
import { fmt } from "./format.ts";

export interface SameModelWords {
  /** A badge beside the name, for a route that differs; null otherwise. */
  badge: string | null;
  /** A short line under the name; null where there is nothing to say (no reference, too few samples). */
  note: string | null;
  /** The verdict in full, for a tooltip and the model page. */
  title: string;
}

const p = (value: number | null) => (value === null ? "" : `p = ${value < 0.001 ? "< 0.001" : fmt(value, 3)}`);

export function sameModelWords(sm: SameModel | null): SameModelWords | null {
  if (sm === null) return null;
  const tested = [p(sm.pValue), `${fmt(sm.samples)} completions`].filter(Boolean).join(", ");
  switch (sm.verdict) {
    case "differs":
      return {
        badge: sm.cause === "tokenizer" ? "other tokenizer than the reference" : "differs from the reference",
        note: null,
        title: `${sm.reason} (${tested})`,
      };
    case "same":
      return sm.cause === "reference"
        ? { badge: null, note: "the model's reference route", title: sm.reason }
        : {
            badge: null,
            note: `no difference from ${sm.reference ?? "the reference"} detected`,
            title: `${sm.reason} (${tested})`,
          };
    default:
      return { badge: null, note: null, title: sm.reason };
  }
}
