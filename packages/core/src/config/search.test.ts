/** @module Searched levels in the config: the search forms of concurrency and ratesPerSecond at any layer, and each bad value named at its path. */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/index.ts";
import { levelSearch } from "../kinds/index.ts";
import { parseConfig, workloadFor } from "./index.ts";

const target = (extra: Record<string, unknown> = {}) => ({
  id: "llama-8b",
  label: "Llama",
  baseURL: "http://127.0.0.1:1/v1",
  model: "llama-3.1-8b-instruct",
  route: { gateway: "direct" },
  ...extra,
});
const parse = (config: unknown) => parseConfig(JSON.stringify(config), { env: {} });
const problemsOf = (config: unknown) => {
  try {
    parse(config);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("config was accepted");
};
const search = (extra: Record<string, unknown> = {}) => ({ search: { from: 1, to: 256, resolution: 0.1, ...extra } });

describe("searched levels", () => {
  it("take a concurrency search at the top, a target's or a scenario's layer", () => {
    const config = parse({
      targets: [target(), target({ id: "b", workload: { concurrency: search({ from: 2 }) } })],
      workload: { concurrency: search() },
      scenarios: { chat: {}, ladder: { concurrency: [1, 2] }, deep: { concurrency: search({ to: 64 }) } },
    });
    const [a, b] = config.targets as [never, never];
    expect(levelSearch(workloadFor(config, a, "chat"))).toEqual({
      axis: "concurrency",
      settings: { from: 1, to: 256, resolution: 0.1 },
    });
    expect(levelSearch(workloadFor(config, b, "chat"))?.settings.from).toBe(2);
    expect(levelSearch(workloadFor(config, a, "ladder"))).toBeNull();
    expect(levelSearch(workloadFor(config, b, "deep"))?.settings).toEqual({ from: 1, to: 64, resolution: 0.1 });
  });

  it("take a rate search for poisson and gamma arrivals, with its optional confidence and cap", () => {
    const config = parse({
      targets: [target()],
      scenarios: {
        p: { arrival: { mode: "poisson", ratesPerSecond: search({ from: 0.5, to: 200 }) } },
        g: {
          arrival: {
            mode: "gamma",
            burstiness: 0.5,
            ratesPerSecond: search({ confidence: 0.9, maxRequestsPerLevel: 300 }),
          },
        },
      },
    });
    const t = config.targets[0] as never;
    expect(levelSearch(workloadFor(config, t, "p"))).toEqual({
      axis: "rate",
      settings: { from: 0.5, to: 200, resolution: 0.1 },
    });
    expect(levelSearch(workloadFor(config, t, "g"))?.settings).toMatchObject({
      confidence: 0.9,
      maxRequestsPerLevel: 300,
    });
  });

  it("name from above to, a resolution outside (0, 1] and fractional users at their paths", () => {
    expect(
      problemsOf({
        targets: [target({ workload: { concurrency: search({ from: 8, to: 4 }) } })],
        workload: { concurrency: search({ resolution: 0 }) },
        scenarios: {
          wide: { concurrency: search({ resolution: 1.5 }) },
          half: { concurrency: search({ from: 1.5 }) },
          rates: { arrival: { mode: "poisson", ratesPerSecond: search({ from: 10, to: 2 }) } },
        },
      }).map((p) => p.path),
    ).toEqual([
      "targets[0].workload.concurrency.search.from",
      "workload.concurrency.search.resolution",
      "scenarios.wide.concurrency.search.resolution",
      "scenarios.half.concurrency.search.from",
      "scenarios.rates.arrival.ratesPerSecond.search.from",
    ]);
  });

  it("name a search over a trace replay at the layer that set it", () => {
    const problems = problemsOf({
      targets: [target()],
      workload: { concurrency: search() },
      scenarios: { replay: { arrival: { mode: "trace", file: "t.jsonl", format: "mooncake" } } },
    });
    expect(problems).toEqual([{ path: "workload.concurrency", message: expect.stringContaining("trace replay") }]);
  });

  it("name a search with levelDurationSeconds at the duration", () => {
    const problems = problemsOf({
      targets: [target()],
      workload: { levelDurationSeconds: 12 },
      scenarios: { open: { arrival: { mode: "poisson", ratesPerSecond: search({ from: 0.5 }) } } },
    });
    expect(problems).toEqual([
      { path: "workload.levelDurationSeconds", message: expect.stringContaining("requestsPerLevel") },
    ]);
  });

  it("keep ladders as they were, and a concurrency search under open arrivals unused", () => {
    const config = parse({
      targets: [target()],
      workload: { concurrency: search(), arrival: { mode: "poisson", ratesPerSecond: [1, 2] } },
    });
    expect(levelSearch(workloadFor(config, config.targets[0] as never))).toBeNull();
    expect(problemsOf({ targets: [target()], workload: { concurrency: [2, 1] } }).map((p) => p.path)).toEqual([
      "workload.concurrency[1]",
    ]);
  });
});
