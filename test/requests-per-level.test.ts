/**
 * @module A closed loop with `requestsPerLevel` at most N: every worker sends at most one request, so
 * N are never in flight and the level cannot be valid (issue 31: "client limited: achieved concurrency
 * 52, under 90 % of 64" with an idle client). `plan` and `run` say so before sending (a warning, or
 * an error with nothing sent when no level can be valid); the level's reason names the workload.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "@kneeboard/cli/main";
import { loadPosition, RunDocument } from "@kneeboard/core/run";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countingSink } from "./cli-harness";

let server: ReferenceServer;
const dir = mkdtempSync(join(tmpdir(), "kneeboard-per-level-"));

beforeAll(async () => {
  server = await startReferenceServer({
    models: [
      {
        kind: "model",
        id: "m",
        profile: { stepBaseMs: 25, stepPerSeqMs: 0, slots: 16, prefillBaseMs: 1, prefillPerTokenMs: 0 },
      },
    ],
  });
});
afterAll(() => server.close());

async function kneeboard(command: "run" | "plan", name: string, concurrency: number[]) {
  const file = join(dir, `${name}.json`);
  const data = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      targets: [{ id: name, label: name, baseURL: server.url, model: "m", route: { gateway: "direct" } }],
      workload: { concurrency, requestsPerLevel: 4, warmupRequests: 0, maxTokens: 4, promptTokens: 10, canary: false },
    }),
  );
  const out = countingSink(server);
  const err = countingSink(server);
  const before = server.counts().requests;
  const args = command === "run" ? ["run", "--config", file, "--data", data] : ["plan", "--config", file];
  const code = await main(args, { out: out.stream, err: err.stream } as never);
  let docs: RunDocument[] = [];
  try {
    const runs = join(data, "runs", name);
    docs = readdirSync(runs).map((f) => RunDocument.parse(JSON.parse(readFileSync(join(runs, f), "utf8"))));
  } catch {
    docs = [];
  }
  return { code, out, err, docs, received: server.counts().requests - before, before };
}

describe("requestsPerLevel at most N", () => {
  it("no level can be valid ([4], 4 requests): plan and run say so as an error, exit 2, nothing sent", async () => {
    // Both refuse the config as invalid, on stderr under the file's name; plan never calls it valid.
    const planned = await kneeboard("plan", "none-valid", [4]);
    expect(planned.code).toBe(2);
    expect(planned.out.text()).toBe("");
    const file = join(dir, "none-valid.json");
    expect(planned.err.text()).toContain(`${file} is invalid:\n`);
    expect(planned.err.text()).toContain("requestsPerLevel 4 is at most N at level 4");
    const ran = await kneeboard("run", "none-valid", [4]);
    expect(ran.code).toBe(2);
    expect(ran.err.text()).toContain(`${file} is invalid:\n`);
    expect(ran.err.text()).toContain("no level can be valid");
    expect(ran.received).toBe(0);
    expect(ran.docs).toHaveLength(0);
  });

  it("some levels ([1, 4], 4 requests): a warning before the first send; level 4 invalid for its workload, not the client", async () => {
    const planned = await kneeboard("plan", "some-valid", [1, 4]);
    expect(planned.code).toBe(0);
    expect(planned.out.text()).toContain("warning: requestsPerLevel 4 is at most N at level 4");
    const { code, err, docs, received, before } = await kneeboard("run", "some-valid", [1, 4]);
    const warning = err.writes.find((w) => w.text.startsWith("warning:"));
    expect(warning?.text).toContain("that level will be invalid (too_few_requests)");
    expect(warning?.receivedBefore).toBe(before);
    expect(received).toBe(8);
    const level4 = docs[0]?.levels.find((l) => loadPosition(l.load) === 4);
    expect(level4?.invalid.map((r) => r.code)).toContain("too_few_requests");
    // Not blamed on the client's concurrency (what the workload caused); a loaded machine may still
    // add a read-delay reason of its own, which is the client's and true.
    expect(level4?.invalid.map((r) => r.code)).not.toContain("client_concurrency");
    expect(level4?.invalidReasons.join(" ")).toContain("the workload sends at most one request per worker");
    expect(code).toBe(docs[0]?.status === "failed" ? 1 : 0);
  });
});
