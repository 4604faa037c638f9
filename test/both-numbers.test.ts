/**
 * @module Every route's two numbers: a ladder without N = 1, or with one level only, is allowed, and
 * `plan` and `run` say before anything is sent which number the route will lack; a ladder with both
 * and a search (which measures N = 1 first) say nothing of it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "@kneeboard/cli/main";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countingSink } from "./cli-harness";

let server: ReferenceServer;
const dir = mkdtempSync(join(tmpdir(), "kneeboard-both-numbers-"));

beforeAll(async () => {
  server = await startReferenceServer({
    models: [
      {
        kind: "model",
        id: "m",
        profile: { stepBaseMs: 5, stepPerSeqMs: 0, slots: 16, prefillBaseMs: 1, prefillPerTokenMs: 0 },
      },
    ],
  });
});
afterAll(() => server.close());

async function kneeboard(command: "run" | "plan", name: string, concurrency: unknown) {
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      targets: [{ id: name, label: name, baseURL: server.url, model: "m", route: { gateway: "direct" } }],
      workload: { concurrency, requestsPerLevel: 8, warmupRequests: 0, maxTokens: 4, promptTokens: 10, canary: false },
    }),
  );
  const out = countingSink(server);
  const err = countingSink(server);
  const before = server.counts().requests;
  const args = command === "run" ? ["run", "--config", file, "--data", join(dir, name)] : ["plan", "--config", file];
  const code = await main(args, { out: out.stream, err: err.stream } as never);
  return { code, out, err, before };
}

describe("a ladder that lacks one of the route's two numbers", () => {
  it("without N = 1 ([2, 4]): plan and run warn that there will be no single-stream figure, before the first send", async () => {
    const planned = await kneeboard("plan", "no-one", [2, 4]);
    expect(planned.code).toBe(0);
    expect(planned.out.text()).toContain(
      "warning: no level at N = 1 (concurrency 2, 4): the route will have no single-stream figure",
    );
    const ran = await kneeboard("run", "no-one", [2, 4]);
    const warning = ran.err.writes.find((w) => w.text.includes("no level at N = 1"));
    expect(warning?.text).toContain("warning: workload.concurrency (target no-one, scenario chat)");
    expect(warning?.receivedBefore).toBe(ran.before);
  });

  it("one level only ([1]): plan and run warn that there will be no concurrent figures", async () => {
    const planned = await kneeboard("plan", "one-level", [1]);
    expect(planned.out.text()).toContain(
      "warning: one level only (N = 1): the route will have no concurrent figures (peak, knee, capacity above N = 1)",
    );
    expect(planned.out.text()).not.toContain("no level at N = 1");
    const ran = await kneeboard("run", "one-level", [1]);
    expect(ran.err.text()).toContain("one level only (N = 1)");
  });

  it("one level above 1 ([4]): both numbers missing, both said", async () => {
    const text = (await kneeboard("plan", "four", [4])).out.text();
    expect(text).toContain("no level at N = 1 (concurrency 4)");
    expect(text).toContain("one level only (N = 4)");
  });

  it("a ladder with both ([1, 4]) and a search from 4 (N = 1 measured first) warn of nothing", async () => {
    for (const [name, concurrency] of [
      ["both", [1, 4]],
      // A cap that can decide under the default TTFT limit (4 x requestsPerLevel 8 cannot: plan refuses it).
      ["searched", { search: { from: 4, to: 8, resolution: 0.1, maxRequestsPerLevel: 128 } }],
    ] as const) {
      const text = (await kneeboard("plan", name, concurrency)).out.text();
      expect(text).not.toContain("no level at N = 1");
      expect(text).not.toContain("one level only");
      expect(text).toContain(`target ${name} [chat]`);
      // The search's plan counts the level of one user it runs first: N = 1 at requestsPerLevel (8), then the search from 4.
      if (name === "searched") expect(text).toMatch(/\n {8}1 {8}0 {9}8 .*\n {8}4 /);
    }
  });
});
