/**
 * @module Two groups of test files, one after the other. First the files that measure nothing against
 * the clock run side by side, one per core, the longest first (project `parallel`); then the files that
 * wait on real servers' clocks or hold measured times to them, six at a time (project `timed`). A
 * build or a browser beside a timed file would bend the very numbers it checks. `npx vitest run
 * --project timed` runs the timed files alone.
 */
import { availableParallelism } from "node:os";
import { relative } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Every test file of the repo. */
const ALL = [
  "packages/*/src/**/*.test.ts",
  "functions/src/**/*.test.ts",
  "site/test/**/*.test.ts",
  "test/**/*.test.ts",
];

/**
 * Files that compare what the client measured (TTFT, gaps, rates, stalls, connection reuse, a run's
 * validity, which judges the client's health) with what a real server on this machine did, in real
 * time, and the end-to-end scheduled path, whose simulated invocations end on the wall clock (3.9 s
 * each, for a level of 2 s: on a busy machine a level no longer fits in one): after the parallel
 * group, six at a time.
 * They spend their time waiting on their servers' clocks (a sixth of a core or less each, but for the
 * scheduled path's site builds): on two cores the group used about half the CPU it had at four at a
 * time, and its longest file then (a search on the decoder's clock, 88 s for 3 s of CPU) set its length.
 * What would bend their numbers is the parallel group's builds and browsers beside them. Files that
 * only wait on real servers (the tool-call runs through the CLI) are here too: in the parallel group
 * each held one of its two workers idle.
 */
const TIMED = [
  "packages/core/src/client/connections.test.ts",
  "packages/core/src/client/health.test.ts",
  "packages/core/src/client/index.test.ts",
  "packages/core/src/client/reader-fields.test.ts",
  "test/e2e-aws-local.test.ts",
  "test/early-stop.test.ts",
  "test/open-loop.test.ts",
  "test/prefill.test.ts",
  "test/reference-reader.test.ts",
  "test/reference.test.ts",
  "test/sweep-connections.test.ts",
  "test/sweep.test.ts",
  // Stalls ended by the idle timeout, 128 streams, open-loop rates held to their Poisson margin.
  "test/stream-faults.test.ts",
  "test/listeners.test.ts",
  "test/open-loop-validity.test.ts",
  // Replayed traces and gamma arrivals: the server's arrival times against the schedule.
  "test/trace-replay.test.ts",
  // Conversations judged by how TTFT moves over their turns: a busy neighbour would move it.
  "test/conversation.test.ts",
  // Runs that must come out valid (a run with no valid level fails, exit 1).
  "test/requests-per-level.test.ts",
  "test/cli.test.ts",
  // The README's own-endpoint commands: a run that must come out valid, then a site build.
  "test/readme-endpoint.test.ts",
  "test/cli-stop.test.ts",
  "test/cli-crash.test.ts",
  // The capacity search over real HTTP: what it decides is judged from the per-stream speeds it measured.
  "test/search-capacity-http.test.ts",
  // The same search with its probed levels on 2 worker threads.
  "test/search-threads-http.test.ts",
  // Failed requests and the SLO: two routes' levels that must come out valid, their goodput side by side.
  "test/slo-failures.test.ts",
  // Searched runs (--repeat 3) whose levels must meet the SLO on a real server's clock.
  "test/cli-search-repeat.test.ts",
  // Tool-call runs through the CLI on real servers: 34 s, 6 s of CPU.
  "test/cli-tool-calls.test.ts",
  // The client's own delay raised until it bends TTFT, and sweeps on worker threads: they keep both
  // cores busy themselves, and pass beside two busy loops (the check of a busy machine), so they share
  // the time of the other timed files, which mostly wait on their servers' clocks.
  "test/client-health.test.ts",
  "test/sweep-threads.test.ts",
];

/**
 * The longest files of each group, started first so that the workers end together rather than one
 * finishing a long file alone at the end. Vitest would order by the durations it recorded last time,
 * but a fresh clone has none and falls back to file size, which put the timed group's second and third
 * longest files (a minute or less each, but for a site build) after a dozen short ones.
 */
const LONGEST_FIRST = [
  // The parallel group: 10 s to over a minute each on two cores.
  // A 160-route site built and walked in Chromium (about a minute), a fanned-out rebuild on the AWS
  // stand-ins, the fifth kind type-checked over the tree.
  "site/test/catalogue.test.ts",
  "test/e2e-aws-fanout.test.ts",
  "test/fifth-kind.test.ts",
  "packages/core/src/aws/store.contract.test.ts",
  // Searched levels on a TTFT limit, 720 of them.
  "test/search-ttft-boundary.test.ts",
  "functions/src/publish-package.test.ts",
  // The readers of the shared fixture site, once it is likely built: the walks of every variant of every
  // page, one pass a file (axe, most of their time: every rule on the laptop, colours on the phone).
  "site/test/layout-laptop.test.ts",
  "site/test/site.test.ts",
  "site/test/layout-phone.test.ts",
  "packages/core/src/same-model/index.test.ts",
  "site/test/layout.test.ts",
  "packages/core/src/aws/scheduled.contract.test.ts",
  "site/test/chart-text.test.ts",
  "test/reference-tools.test.ts",
  // Seeded searches on the batch decoder in a manual scheduler's time.
  "test/search-capacity.test.ts",
  "test/architecture.test.ts",
  // A build of the kneeboard package, packed and installed.
  "test/package.test.ts",
  // The timed group, six at a time, by their durations on two quiet cores: the scheduled path (five
  // site builds and invocations on the wall clock, 75 s), searched runs repeated three times, the
  // search over real HTTP on the batch decoder's clock (on one thread, on two), runs killed mid-level
  // (and a site build), the tool-call runs, the README's commands (a run, a site build), the client's
  // delay raised until it bends TTFT. The longest starts first: started after the first ones, a file
  // of over a minute ended the group alone.
  "test/e2e-aws-local.test.ts",
  "test/cli-search-repeat.test.ts",
  "test/search-capacity-http.test.ts",
  "test/cli-crash.test.ts",
  "test/search-threads-http.test.ts",
  "test/cli-tool-calls.test.ts",
  "test/sweep.test.ts",
  "test/sweep-threads.test.ts",
  "test/readme-endpoint.test.ts",
  "test/trace-replay.test.ts",
  "test/cli-stop.test.ts",
  "test/client-health.test.ts",
  "test/reference-reader.test.ts",
];

/** Within a group, `LONGEST_FIRST` in its order, then the other files as Vitest orders them. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(relative(import.meta.dirname, f.moduleId));
      return i === -1 ? LONGEST_FIRST.length : i;
    };
    const sorted = await super.sort(files);
    const order = new Map(sorted.map((f, i) => [f, i]));
    return sorted.sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        rank(a) - rank(b) ||
        (order.get(a) ?? 0) - (order.get(b) ?? 0),
    );
  }
}

/** Side by side, one per core (Vitest's default is one worker fewer than the cores: one, on two). */
const maxWorkers = Math.max(2, availableParallelism());

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: ALL,
          // One process per worker for all its files: modules load once, not once a file (about a
          // second each, most of a minute over the group's small files).
          isolate: false,
          exclude: [...configDefaults.exclude, ...TIMED],
          // The one fixture site that the site tests of `READERS` in site/test/shared-site.ts share,
          // built once a run beside the other files (`site/test/shared-site.ts`).
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
          maxWorkers: 6,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
