/** @module `workload.conversation`: its defaults, the scenario that sets it, and every invalid form named by its path. */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/index.ts";
import { planLevels } from "../plan/index.ts";
import { parseConfig, workloadFor } from "./index.ts";

const target = {
  id: "llama-8b",
  label: "Llama",
  baseURL: "http://127.0.0.1:1/v1",
  model: "llama-3.1-8b-instruct",
  route: { gateway: "direct" },
};
const parse = (config: unknown) => parseConfig(JSON.stringify(config), { env: {} });
const problemsOf = (config: unknown) => {
  try {
    parse(config);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => [p.path, p.message]);
    throw error;
  }
  throw new Error("config was accepted");
};

describe("workload.conversation", () => {
  it("defaults its think time to 0 and its questions to the workload's promptTokens; only its scenario has it", () => {
    const config = parse({
      targets: [target],
      workload: { promptTokens: 80 },
      scenarios: { chat: {}, conversation: { conversation: { turns: 4, sharedPrefixTokens: 500 } } },
    });
    const t = config.targets[0] as (typeof config.targets)[number];
    const talk = workloadFor(config, t, "conversation");
    expect(talk.conversation).toEqual({ turns: 4, sharedPrefixTokens: 500, thinkSeconds: 0 });
    expect(workloadFor(config, t, "chat").conversation).toBeUndefined();
    // Each level's N users hold conversations: the conversation kind's levels.
    expect(planLevels(talk, 1).map((l) => l.load)).toContainEqual({
      kind: "conversation",
      concurrency: 1,
      turns: 4,
      thinkSeconds: 0,
    });
  });

  it("names turns below 1 and a negative think time by their paths", () => {
    expect(
      problemsOf({
        targets: [target],
        workload: { conversation: { turns: 0, sharedPrefixTokens: 100, thinkSeconds: -1 } },
      }),
    ).toEqual([
      ["workload.conversation.turns", "must be at least 1: a conversation has at least one turn"],
      ["workload.conversation.thinkSeconds", "must not be negative: a think time is 0 seconds or more"],
    ]);
    expect(
      problemsOf({
        targets: [target],
        scenarios: { talk: { conversation: { turns: 2.5, sharedPrefixTokens: 0 } } },
      }),
    ).toEqual([["scenarios.talk.conversation.turns", "must be a whole number of turns, at least 1"]]);
  });

  it("is a closed loop's: with Poisson arrivals it is an error at its path", () => {
    expect(
      problemsOf({
        targets: [target],
        workload: {
          arrival: { mode: "poisson", ratesPerSecond: [1] },
          conversation: { turns: 2, sharedPrefixTokens: 0 },
        },
      }),
    ).toEqual([
      [
        "workload.conversation",
        "conversations run in a closed loop (each user waits for the answer before the next turn), not with poisson arrivals",
      ],
    ]);
  });

  it("names the scenario that sets a conversation over Poisson arrivals set below it", () => {
    expect(
      problemsOf({
        targets: [target],
        workload: { arrival: { mode: "poisson", ratesPerSecond: [1] } },
        scenarios: { open: {}, talk: { conversation: { turns: 2, sharedPrefixTokens: 0 } } },
      }).map(([path]) => path),
    ).toEqual(["scenarios.talk.conversation"]);
  });
});
