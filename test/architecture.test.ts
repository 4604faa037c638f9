/**
 * @module The architecture check: dependency-cruiser with the repo's rules (`.dependency-cruiser.cjs`)
 * over every package, and over a small tree that breaks each rule once, so the check is seen to fail.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..");
const DEPCRUISE = join(ROOT, "node_modules", ".bin", "depcruise");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The rules' violations over `paths`, cruised from `cwd` with the repo's config. */
async function violations(cwd: string, paths: string[]): Promise<{ violations: Violation[]; modules: number }> {
  const args = [...paths, "--config", join(ROOT, ".dependency-cruiser.cjs"), "--output-type", "json"];
  // depcruise exits non-zero when it finds violations; the JSON report is on stdout either way.
  const out = await promisify(execFile)(DEPCRUISE, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (e: { stdout?: string }) => ({ stdout: e.stdout ?? "" }),
  );
  const report = JSON.parse(out.stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  return { violations: report.summary.violations, modules: report.summary.totalCruised };
}

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

describe("the architecture", () => {
  it("has no cycle, no relative import across packages, and dependencies pointing inward", async () => {
    const { violations: found, modules } = await violations(ROOT, [
      "packages",
      "functions",
      "site/src",
      "test",
      "bench",
    ]);
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
    // Not vacuous: the whole tree was read.
    expect(modules).toBeGreaterThan(200);
  });

  it("fails on a tree that breaks each rule once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kneeboard-architecture-"));
    temp.push(dir);
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    cpSync(join(ROOT, "tsconfig.json"), join(dir, "tsconfig.json"));
    write("packages/core/src/a/index.ts", 'import { b } from "../b/index.ts";\nexport const a = () => b;\n');
    write("packages/core/src/b/index.ts", 'import { a } from "../a/index.ts";\nexport const b = () => a;\n');
    write("packages/core/src/c/index.ts", 'import { run } from "../../../cli/src/main.ts";\nexport const c = run;\n');
    write("packages/cli/src/main.ts", "export const run = 1;\n");
    write("packages/core/src/store/index.ts", "export const store = 1;\n");
    write(
      "site/src/components/x.ts",
      'import { store } from "../../../packages/core/src/store/index.ts";\nexport const x = store;\n',
    );
    const { violations: found } = await violations(dir, ["packages", "site"]);
    expect(new Set(found.map((v) => v.rule.name))).toEqual(
      new Set([
        "no-circular",
        "no-relative-import-across-packages",
        "core-imports-no-outer-layer",
        "components-do-not-read-the-store",
      ]),
    );
  });
});
