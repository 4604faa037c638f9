/** @module `kneeboard run` refuses a bad modelKey, pricing or SLO: exit 2, each named by its path, nothing written. */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const BIN = new URL("../packages/cli/bin/kneeboard.js", import.meta.url).pathname;

describe("kneeboard run with bad reader fields", () => {
  it("exits 2, names the modelKey, pricing and slo paths, and writes nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kneeboard-pricing-"));
    const data = join(dir, "data");
    const file = join(dir, "bad.json");
    const target = { label: "m", baseURL: "http://127.0.0.1:9/v1", model: "org/m", route: { gateway: "direct" } };
    writeFileSync(
      file,
      JSON.stringify({
        targets: [
          { ...target, id: "a", modelKey: "Not A Slug" },
          { ...target, id: "b", pricing: { hourlyUsd: -2 } },
          { ...target, id: "c", pricing: { outputPerMillionUsd: 1 } },
        ],
        workload: { slo: { maxTtftMs: 0 } },
      }),
    );
    const result = await run(process.execPath, [BIN, "run", "--config", file, "--data", data]).then(
      () => ({ code: 0, out: "" }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        out: error.stdout + error.stderr,
      }),
    );
    expect(result.code).toBe(2);
    for (const path of [
      "targets[0].modelKey",
      "targets[1].pricing.hourlyUsd",
      "targets[2].pricing",
      "workload.slo.maxTtftMs",
    ])
      expect(result.out).toContain(path);
    expect(existsSync(data)).toBe(false);
  });
});
