/**
 * The Lambda bundles as `functions/bundle.ts` builds them load in node and export their handler:
 * a bundle that only builds can still fail at load (a name its banner declares twice, say).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { lambdaEsbuild } from "../bundle.ts";

const dir = mkdtempSync(join(tmpdir(), "kneeboard-functions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the Lambda bundles", () => {
  it.each(["sweep", "plan", "subscribe"])("%s loads and exports its handler", async (name) => {
    const outfile = join(dir, `${name}.mjs`);
    await build({
      ...lambdaEsbuild,
      entryPoints: [new URL(`./${name}.ts`, import.meta.url).pathname],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile,
      logLevel: "silent",
    });
    const { stdout } = await promisify(execFile)(process.execPath, [
      "--input-type=module",
      "-e",
      "const m = await import(process.argv[1]); process.stdout.write(typeof m.handler);",
      outfile,
    ]);
    expect(stdout).toBe("function");
  });
});
