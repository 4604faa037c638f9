/**
 * @module The architecture check: dependency-cruiser with the repo's rules (`.dependency-cruiser.cjs`)
 * over every package, and over a small tree that breaks each rule once, so the check is seen to fail.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
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

/**
 * The rules for Astro files, which dependency-cruiser does not read: each one's frontmatter imports.
 * Components and layouts render what their page gives them: they never read the site index (a type
 * from it is fine) nor the store; pages read the site index, never the store.
 */
const ASTRO_RULES: { name: string; from: RegExp; to: RegExp; valuesOnly: boolean }[] = [
  {
    name: "components-render-what-they-are-given",
    from: /^site\/src\/(components|layouts)\//,
    to: /(^|\/)lib\/site-index\.ts$/,
    valuesOnly: true,
  },
  {
    name: "components-do-not-read-the-store",
    from: /^site\/src\/(components|layouts|pages)\//,
    to: /^@kneeboard\/core\/(store|run-index|aws)|^@aws-sdk|packages\/core\/src\/(store|run-index|aws)\//,
    valuesOnly: false,
  },
];

/** Every `.astro` file under dir, relative to root. */
function astroFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return astroFiles(root, path);
    return entry.name.endsWith(".astro") ? [path] : [];
  });
}

/** The Astro rules' violations under `root`'s site/src. */
function astroViolations(root: string): { violations: Violation[]; files: number } {
  const files = astroFiles(root, "site/src");
  const found = files.flatMap((file) => {
    const frontmatter = readFileSync(join(root, file), "utf8").split(/^---$/m)[1] ?? "";
    const imports = [...frontmatter.matchAll(/^import\s+(type\s)?[^"']*?from\s+["']([^"']+)["']/gm)].map((m) => ({
      typeOnly: m[1] !== undefined,
      // A relative import as a path from the root, like dependency-cruiser's.
      to: (m[2] as string).startsWith(".")
        ? relative(root, join(root, dirname(file), m[2] as string))
        : (m[2] as string),
    }));
    return ASTRO_RULES.flatMap((rule) =>
      rule.from.test(file)
        ? imports
            .filter((i) => rule.to.test(i.to) && !(rule.valuesOnly && i.typeOnly))
            .map((i) => ({ rule: { name: rule.name }, from: file, to: i.to }))
        : [],
    );
  });
  return { violations: found, files: files.length };
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

  it("keeps the site's Astro components to rendering what they are given", () => {
    const { violations: found, files } = astroViolations(ROOT);
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
    expect(files).toBeGreaterThan(15);
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
    write("site/src/components/Reads.astro", '---\nimport { siteIndex } from "../lib/site-index.ts";\n---\n');
    write("site/src/components/Types.astro", '---\nimport type { SiteIndex } from "../lib/site-index.ts";\n---\n');
    write("site/src/pages/store.astro", '---\nimport { readRun } from "@kneeboard/core/store";\n---\n');
    expect(astroViolations(dir).violations).toEqual([
      {
        rule: { name: "components-render-what-they-are-given" },
        from: "site/src/components/Reads.astro",
        to: "site/src/lib/site-index.ts",
      },
      {
        rule: { name: "components-do-not-read-the-store" },
        from: "site/src/pages/store.astro",
        to: "@kneeboard/core/store",
      },
    ]);
  });
});
