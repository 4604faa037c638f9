/**
 * @module Two groups of test files. First the files that measure nothing against the clock run side by
 * side, one per core (projects `parallel` and `site`, the latter sharing one fixture site build); then,
 * with the machine to themselves, the files that hold measured times to a server's truth or to the wall
 * clock run one at a time (project `timed`): files running beside them would bend the very numbers they
 * check. `npx vitest run --project timed` runs that group alone.
 */
import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/** Every test file of the repo. */
const ALL = [
  "packages/*/src/**/*.test.ts",
  "functions/src/**/*.test.ts",
  "site/test/**/*.test.ts",
  "test/**/*.test.ts",
];

/**
 * Files that compare what the client measured (TTFT, gaps, rates, stalls, connection reuse) with what a
 * real server on this machine did, in real time, and the end-to-end scheduled path, whose simulated
 * invocations end on the wall clock (3 s each: on a busy machine a level no longer fits in one): alone,
 * after the parallel group.
 */
const TIMED = [
  "packages/core/src/client/connections.test.ts",
  "packages/core/src/client/health.test.ts",
  "packages/core/src/client/index.test.ts",
  "packages/core/src/client/reader-fields.test.ts",
  "test/client-health.test.ts",
  "test/e2e-aws-local.test.ts",
  "test/early-stop.test.ts",
  "test/open-loop.test.ts",
  "test/prefill.test.ts",
  "test/reference-reader.test.ts",
  "test/reference.test.ts",
  "test/sweep-connections.test.ts",
  "test/sweep-threads.test.ts",
  "test/sweep.test.ts",
  // Stalls ended by the idle timeout, 128 streams, open-loop rates held to their Poisson margin.
  "test/stream-faults.test.ts",
  "test/listeners.test.ts",
  "test/open-loop-validity.test.ts",
  // Replayed traces and gamma arrivals: the server's arrival times against the schedule.
  "test/trace-replay.test.ts",
  // Conversations judged by how TTFT moves over their turns: a busy neighbour would move it.
  "test/conversation.test.ts",
  // Runs that must come out valid (a run with no valid level fails, exit 1), and the client's health
  // is judged in them: a file beside them can make their short streams read "client limited".
  "test/requests-per-level.test.ts",
  "test/cli.test.ts",
  "test/cli-stop.test.ts",
  "test/cli-crash.test.ts",
];

/** Files that read the one shared fixture site, built by the `site` project's global setup. */
const SHARED_SITE = ["site/test/site.test.ts", "site/test/chart-text.test.ts", "site/test/compare.test.ts"];

/** Side by side, one per core (Vitest's default is one worker fewer than the cores: one, on two). */
const maxWorkers = Math.max(2, availableParallelism());

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: ALL,
          exclude: [...configDefaults.exclude, ...TIMED, ...SHARED_SITE],
          maxWorkers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "site",
          include: SHARED_SITE,
          // Starts the shared build and goes on: the other files run while it builds.
          globalSetup: ["site/test/shared-site.ts"],
          maxWorkers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "timed",
          include: TIMED,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
