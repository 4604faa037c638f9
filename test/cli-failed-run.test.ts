/**
 * @module `kneeboard run` against targets that answer every request with an error, as a new user's
 * first config does (a base URL without `/v1`: 404; a wrong key: 401), and with `--data` naming a
 * file: the run is `failed`, the command exits 1 and says the likely cause once, the counts say what
 * was sent (the server counts what it received), the client is not blamed; a bad `--data` sends nothing.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { main } from "@kneeboard/cli/main";
import { FAILED_RUN_KEPT } from "@kneeboard/cli/run";
import { isClientReason } from "@kneeboard/core/metrics";
import { RunDocument } from "@kneeboard/core/run";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const KEY = "sk-right-key";
let server: ReferenceServer;
const dir = mkdtempSync(join(tmpdir(), "kneeboard-failed-"));

beforeAll(async () => {
  server = await startReferenceServer({
    models: [
      {
        kind: "model",
        id: "m",
        profile: { stepBaseMs: 1, stepPerSeqMs: 0, slots: 8, prefillBaseMs: 1, prefillPerTokenMs: 0 },
      },
    ],
    apiKey: KEY,
  });
});
afterAll(() => server.close());

function sink() {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/** Runs `kneeboard run` in-process on a config of one target; returns the exit code, its output and the stored documents. */
async function kneeboardRun(name: string, target: Record<string, unknown>, data = join(dir, name)) {
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      targets: [{ id: name, label: name, model: "m", route: { gateway: "direct" }, ...target }],
      // 1 warm-up and 2 measured: 3 requests in all, under the 4 of the early-end rule.
      workload: {
        concurrency: [1, 2],
        requestsPerLevel: 2,
        warmupRequests: 1,
        maxTokens: 4,
        promptTokens: 10,
        canary: false,
      },
    }),
  );
  const out = sink();
  const err = sink();
  const before = server.counts().requests;
  const code = await main(["run", "--config", file, "--data", data], { out: out.stream, err: err.stream } as never);
  const runs = join(data, "runs", name);
  let docs: RunDocument[] = [];
  try {
    docs = readdirSync(runs).map((f) => RunDocument.parse(JSON.parse(readFileSync(join(runs, f), "utf8"))));
  } catch {
    docs = [];
  }
  return { code, out: out.text(), err: err.text(), docs, received: server.counts().requests - before };
}

describe("a run in which no level is valid", () => {
  it("a base URL without /v1 (HTTP 404): failed, exit 1, the cause said once, counts of what was sent", async () => {
    const root = server.url.replace(/\/v1$/, "");
    process.env.KNEEBOARD_TEST_RIGHT_KEY = KEY;
    const { code, out, err, docs, received } = await kneeboardRun("no-v1", {
      baseURL: root,
      apiKeyEnv: "KNEEBOARD_TEST_RIGHT_KEY",
    });
    delete process.env.KNEEBOARD_TEST_RIGHT_KEY;
    expect(code).toBe(1);
    expect(docs).toHaveLength(1);
    const doc = docs[0] as RunDocument;
    expect(doc.status).toBe("failed");
    expect(err.match(/is baseURL the API root, ending in \/v1/g)).toHaveLength(1);
    expect(out).toContain("(failed)");
    // Kept, and said so once with what it means; the summary says there is no figure, not dashes.
    expect(err.split(FAILED_RUN_KEPT)).toHaveLength(2);
    expect(out).toContain("no valid level completed: no single-stream, peak or knee figure");
    expect(out).not.toMatch(/- tok\/s/);
    // Level 1 ran its 3 requests (the server received exactly those) and ended the sweep.
    expect(received).toBe(3);
    expect(doc.levels).toHaveLength(1);
    const level = doc.levels[0];
    expect(level?.requests).toMatchObject({ sent: 2, httpError: 2 });
    expect(level?.invalid.map((r) => r.code)).toContain("ended_early");
    // Its early end judged the 3 sent, not "4".
    expect(level?.invalid.find((r) => r.code === "ended_early")?.detail).toEqual({ firstRequests: 3 });
    expect(doc.summary.stop?.detail).toContain("its first 3 requests");
    // Instant error replies say nothing of the client: no client reason.
    expect(level?.invalid.some((r) => isClientReason(r.code))).toBe(false);
    expect(level?.client.limited).toBe(false);
  });

  it("a model the endpoint does not serve (HTTP 404 from /v1): the endpoint's own sentence on stderr, no /v1 hint", async () => {
    process.env.KNEEBOARD_TEST_RIGHT_KEY = KEY;
    const { code, out, err, docs } = await kneeboardRun("no-model", {
      baseURL: server.url,
      model: "no-such-model",
      apiKeyEnv: "KNEEBOARD_TEST_RIGHT_KEY",
    });
    delete process.env.KNEEBOARD_TEST_RIGHT_KEY;
    expect(code).toBe(1);
    expect(docs[0]?.status).toBe("failed");
    // The reference server answers as OpenAI does: "The model no-such-model does not exist".
    expect(err).toContain(
      `run failed (no valid level) for no-model: HTTP 404 from ${server.url} ("The model no-such-model does not exist"): does the endpoint serve the model no-such-model?`,
    );
    expect(err).not.toContain("/v1 (e.g.");
    expect(err.split(FAILED_RUN_KEPT)).toHaveLength(2);
    expect(out).toContain("(failed)");
  });

  it("a wrong key (HTTP 401): failed, exit 1, the cause names the key's variable once", async () => {
    process.env.KNEEBOARD_TEST_WRONG_KEY = "sk-wrong";
    try {
      const { code, err, docs, received } = await kneeboardRun("bad-key", {
        baseURL: server.url,
        apiKeyEnv: "KNEEBOARD_TEST_WRONG_KEY",
      });
      expect(code).toBe(1);
      expect(docs[0]?.status).toBe("failed");
      expect(err.match(/refused the key; is KNEEBOARD_TEST_WRONG_KEY set to a valid key/g)).toHaveLength(1);
      expect(received).toBe(3);
      expect(docs[0]?.levels[0]?.invalid.some((r) => isClientReason(r.code))).toBe(false);
    } finally {
      delete process.env.KNEEBOARD_TEST_WRONG_KEY;
    }
  });
});

describe("--data naming a file", () => {
  it("exit 2 with a sentence, before a request is sent", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "not a folder");
    for (const data of [file, join(file, "below")]) {
      const { code, err, received } = await kneeboardRun("data-file", { baseURL: server.url }, data);
      expect(code).toBe(2);
      expect(err).toMatch(/is a file, not a folder|a file, not a folder/);
      expect(err).not.toMatch(/ENOTDIR|\n\s+at /);
      expect(received).toBe(0);
    }
  });
});
