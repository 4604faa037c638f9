/**
 * @module `simulated` comes from the server: kneeboard's reference server announces itself with a
 * response header, so `kneeboard run` against `kneeboard serve-reference` stores a simulated run (and
 * index entry), where it once hard-coded false; a server without the header gives a real run.
 */

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { main } from "@kneeboard/cli/main";
import { RunDocument } from "@kneeboard/core/run";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { SIMULATED_HEADER, startReferenceServer } from "@kneeboard/reference";
import { describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "kneeboard-simulated-"));
const quiet = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

async function runAgainst(name: string, baseURL: string) {
  const file = join(dir, `${name}.json`);
  const data = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      targets: [{ id: name, label: name, baseURL, model: "m", route: { gateway: "direct" } }],
      workload: {
        concurrency: [1],
        requestsPerLevel: 2,
        warmupRequests: 1,
        maxTokens: 4,
        promptTokens: 10,
        canary: false,
      },
    }),
  );
  await main(["run", "--config", file, "--data", data], { out: quiet(), err: quiet() } as never);
  const runs = join(data, "runs", name);
  const [doc] = readdirSync(runs).map((f) => RunDocument.parse(JSON.parse(readFileSync(join(runs, f), "utf8"))));
  const [entry] = await new StoreRunIndex(new FolderStore(data)).entries(name);
  return { doc, entry };
}

describe("simulated", () => {
  it("is true for a run against the reference server, in the run document and its index entry", async () => {
    const server = await startReferenceServer({
      models: [
        {
          kind: "model",
          id: "m",
          profile: { stepBaseMs: 5, stepPerSeqMs: 0, slots: 4, prefillBaseMs: 1, prefillPerTokenMs: 0 },
        },
      ],
    });
    try {
      const { doc, entry } = await runAgainst("ref", server.url);
      expect(doc?.simulated).toBe(true);
      expect(entry?.simulated).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("is false against a server that does not announce itself", async () => {
    // A minimal OpenAI-compatible stream without the header.
    let requests = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        requests++;
        res.writeHead(200, { "content-type": "text/event-stream" });
        const chunk = (content: string, finish: string | null) =>
          `data: ${JSON.stringify({ id: "c", model: "m", choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
        res.end(
          `${chunk("a", null)}${chunk("b", "stop")}data: ${JSON.stringify({ id: "c", choices: [], usage: { prompt_tokens: 10, completion_tokens: 2 } })}\n\ndata: [DONE]\n\n`,
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { doc, entry } = await runAgainst("plain", `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
      expect(requests).toBe(3);
      expect(doc?.simulated).toBe(false);
      expect(entry?.simulated).toBe(false);
      expect(SIMULATED_HEADER).toBe("x-kneeboard-simulated");
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
