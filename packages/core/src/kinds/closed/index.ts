/**
 * @module The closed loop (docs/config.md#arrivals): N requests kept in flight, each one's end sending
 * the next; a level per N of `workload.concurrency`. Its config member, levels, run-document load,
 * words and driver.
 */
import { z } from "zod";
import { type LoadKind, NO_INDEX_FIGURES, type NoIndexFields } from "../../drive/kind.ts";
import { closedLevelTiming } from "../../drive/plan.ts";
import { type LevelSearch, ladderOf } from "../../drive/search.ts";
import { USERS, USERS_PLAN, WorkersFigures, type WorkersSpec, workersDriver } from "../../drive/workers.ts";

/** `arrival: { "mode": "closed" }`, the default: N in flight. */
export const ClosedArrival = z.strictObject({
  mode: z.literal("closed").meta({
    description:
      "closed, the default: N requests kept in flight, each one's end sending the next; a level per N of workload.concurrency.",
  }),
});
export type ClosedArrival = z.infer<typeof ClosedArrival>;

/** The run document's closed load: N, the requests kept in flight. */
export const ClosedLoad = z.object({
  kind: z.literal("closed"),
  /** N, the requests kept in flight. */
  concurrency: z.number().int().positive(),
});
export type ClosedLoad = z.infer<typeof ClosedLoad>;

/** A closed level's own figures (`level.closed`): its workers' start spread. */
export const ClosedFigures = WorkersFigures;
export type ClosedFigures = WorkersFigures;

export const closed: LoadKind<
  { concurrency: number[] | LevelSearch },
  ClosedLoad,
  ClosedLoad,
  WorkersSpec<"closed">,
  ClosedFigures,
  WorkersFigures,
  NoIndexFields,
  NoIndexFields
> = {
  kind: "closed",
  document: ClosedLoad,
  figures: { schema: ClosedFigures, of: ({ startSpreadMs }) => ({ startSpreadMs }) },
  index: NO_INDEX_FIGURES,
  arrivalProblems: () => [],
  searchProblems: () => [],
  axis: "concurrency",
  levels: (workload, { requestSeconds }) =>
    ladderOf(workload.concurrency).map((concurrency, i) => ({
      load: { kind: "closed", concurrency },
      name: `concurrency ${concurrency}`,
      level: i + 1,
      ...closedLevelTiming(concurrency, workload, requestSeconds),
    })),
  record: (load) => ({ kind: "closed", concurrency: load.concurrency }),
  ...USERS,
  words: (load) => `N=${load.concurrency}`,
  same: () => true,
  expectsCache: false,
  plan: {
    ...USERS_PLAN,
    loop: () => "closed loop",
    after: () => [],
  },
  driver: workersDriver("closed", () => ({})),
};
