/**
 * @module The architecture check: dependency-cruiser with the repo's rules (`.dependency-cruiser.cjs`)
 * over every package, the cycles between folders in its module graph, the kind branches outside the
 * kinds' modules over the TypeScript AST (`kind-branches.ts`), and the same over a small tree that
 * breaks each rule once, so the check is seen to fail.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { checkedFiles, KIND_OWNERS, kindBranches, kindBranchesIn } from "./kind-branches.ts";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..");
const DEPCRUISE = join(ROOT, "node_modules", ".bin", "depcruise");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** A module of dependency-cruiser's JSON report: its path from the cruise's root and what it imports. */
interface CruisedModule {
  source: string;
  coreModule?: boolean;
  couldNotResolve?: boolean;
  dependencies: { resolved: string; coreModule: boolean; couldNotResolve: boolean }[];
}

/** The rules' violations over `paths`, cruised from `cwd` with the repo's config, and the module graph. */
async function cruise(
  cwd: string,
  paths: string[],
): Promise<{ violations: Violation[]; modules: CruisedModule[]; cruised: number }> {
  const args = [...paths, "--config", join(ROOT, ".dependency-cruiser.cjs"), "--output-type", "json"];
  // depcruise exits non-zero when it finds violations; the JSON report is on stdout either way.
  const out = await promisify(execFile)(DEPCRUISE, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (e: { stdout?: string }) => ({ stdout: e.stdout ?? "" }),
  );
  const report = JSON.parse(out.stdout) as {
    modules: CruisedModule[];
    summary: { violations: Violation[]; totalCruised: number };
  };
  return { violations: report.summary.violations, modules: report.modules, cruised: report.summary.totalCruised };
}

/**
 * Test files sit beside their code and import helpers (`testing/`) that import that code back: a test
 * is a leaf of the graph, never a reason for one folder to depend on another.
 */
const TEST_FILE = /\.test\.ts$/;

/**
 * The cycles between folders: each module collapsed to its own directory (a subfolder is a folder of
 * its own, so `lib` ↔ `lib/charts` is a cycle), test files left out. `no-circular` sees only cycles
 * between files, and dependency-cruiser's folder scope counts a subfolder's modules as its parent's
 * and cannot leave tests out, so the graph is collapsed here. One cycle per strongly connected set of
 * two or more folders, the shortest through its first folder, each step named by one file edge:
 * `a → b → a (a/x.ts → b/y.ts; b/z.ts → a/w.ts)`. Sorted.
 */
function folderCycles(modules: CruisedModule[]): string[] {
  const edges = new Map<string, Map<string, string>>();
  for (const m of modules) {
    if (m.coreModule || m.couldNotResolve || TEST_FILE.test(m.source)) continue;
    for (const d of m.dependencies) {
      if (d.coreModule || d.couldNotResolve || d.resolved.includes("node_modules/") || TEST_FILE.test(d.resolved))
        continue;
      const [from, to] = [dirname(m.source), dirname(d.resolved)];
      if (from === to) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      edges.set(from, out);
      if (!out.has(to)) out.set(to, `${m.source} → ${d.resolved}`);
    }
  }
  // Tarjan's strongly connected components.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (v: string) => {
    order.set(v, order.size);
    low.set(v, order.get(v) as number);
    stack.push(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!order.has(w)) visit(w);
      if (stack.includes(w)) low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
    }
    if (low.get(v) === order.get(v)) {
      const component = stack.splice(stack.indexOf(v));
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!order.has(v)) visit(v);
  return components
    .map((component) => {
      // The shortest way round from the component's first folder back to it, breadth first.
      const start = [...component].sort()[0] as string;
      const cameFrom = new Map<string, string>();
      const queue = [start];
      let last: string | undefined;
      while (last === undefined) {
        const v = queue.shift() as string;
        for (const w of edges.get(v)?.keys() ?? []) {
          if (w === start) last = v;
          else if (component.includes(w) && !cameFrom.has(w)) {
            cameFrom.set(w, v);
            queue.push(w);
          }
          if (last !== undefined) break;
        }
      }
      const path = [start];
      for (let v = last; v !== start; v = cameFrom.get(v) as string) path.splice(1, 0, v);
      path.push(start);
      const files = path.slice(1).map((to, i) => edges.get(path[i] as string)?.get(to));
      return `no-folder-cycle: ${path.join(" → ")} (${files.join("; ")})`;
    })
    .sort();
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

/** The repo's cruise, read once by the tests that need it. */
let repo: ReturnType<typeof cruise> | undefined;
const cruiseRepo = () => {
  repo ??= cruise(ROOT, ["packages", "functions", "site/src", "test", "bench"]);
  return repo;
};

describe("the architecture", () => {
  it("has no cycle, no relative import across packages, and dependencies pointing inward", async () => {
    const { violations: found, cruised } = await cruiseRepo();
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
    // Not vacuous: the whole tree was read.
    expect(cruised).toBeGreaterThan(200);
  });

  it("has no cycle between folders", async () => {
    const { modules } = await cruiseRepo();
    expect(folderCycles(modules)).toEqual([]);
  });

  it("branches on a load kind only in the kinds' modules and registries", () => {
    expect(kindBranches(ROOT)).toEqual([]);
    // Not vacuous: the scan reads the tree, and the same rules do find branches in the kinds' own modules.
    expect(checkedFiles(ROOT).length).toBeGreaterThan(200);
    const owned = KIND_OWNERS.flatMap((owner) =>
      readdirSync(join(ROOT, owner), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
        .flatMap((f) => kindBranchesIn(join(owner, f), readFileSync(join(ROOT, owner, f), "utf8"))),
    );
    expect(owned.length).toBeGreaterThan(5);
  });

  it("finds each kind of kind branch, and not its look-alikes", () => {
    const found = (source: string) => kindBranchesIn("x.ts", source).map((f) => f.split(": ")[1]);
    // Each rule trips.
    expect(found('switch (load.kind) {\n  case "open":\n    return 1;\n}')).toEqual(["cases-on-kind"]);
    expect(found('switch (axis) { case "speedup": break; }')).toEqual(["cases-on-kind"]);
    expect(found('const t = kind === "trace";')).toEqual(["compares-kind"]);
    expect(found('const t = "conversation" !== l.load.kind;')).toEqual(["compares-kind"]);
    expect(found('const t = arrival["mode"] == "gamma";')).toEqual(["compares-kind"]);
    expect(found('const t = (axis as string) === "rate";')).toEqual(["compares-kind"]);
    expect(found('const t = "trace" in level;')).toEqual(["compares-kind"]);
    expect(found("const x = l.conversation ? 1 : 0;")).toEqual(["tests-kind-figures"]);
    expect(found("if (!doc.trace) return;")).toEqual(["tests-kind-figures"]);
    expect(found("const x = l.trace?.reusablePromptTokenShare ?? null;")).toEqual(["tests-kind-figures"]);
    expect(found("const x = Boolean(input.conversation);")).toEqual(["tests-kind-figures"]);
    expect(found("const x = l.open !== null && l.open.inFlightMax;")).toEqual(["tests-kind-figures"]);
    expect(found('const x = l["closed"] || 0;')).toEqual(["tests-kind-figures"]);
    expect(found("const talk = level.conversation;\nif (!talk) return;")).toEqual(["tests-kind-figures"]);
    expect(found("function f(openLoop: boolean) { return 1; }")).toEqual(["open-loop-name"]);
    expect(found("export const isOpenLoopRun = () => true;")).toEqual(["open-loop-name"]);
    expect(found("interface Input { closedLoop?: boolean }")).toEqual(["open-loop-name"]);
    // Look-alikes pass: an alert's state, a rate that is no axis, reading a kind's figures, a class's field, a limit's name.
    expect(found('const a = alert.state === "open";')).toEqual([]);
    expect(found('const m = metric === "rate";')).toEqual([]);
    expect(found("const share = l.trace.reusablePromptTokenShare;")).toEqual([]);
    expect(found("const turns = render(l.conversation);")).toEqual([]);
    expect(found("class R { open = 1; f() { return this.open ? 1 : 0; } }")).toEqual([]);
    expect(found("const n = MIN_OPEN_LOOP_REQUESTS;")).toEqual([]);
    expect(found('const kinds = { closed: 1, open: 2 }; const s = "open";')).toEqual([]);
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
    // Two folders that import each other, with no cycle between their files; likewise a folder and its
    // subfolder; and a cycle through a test file, which is not one.
    write("packages/core/src/d/index.ts", 'import { e } from "../e/leaf.ts";\nexport const d = e;\n');
    write("packages/core/src/d/leaf.ts", "export const d = 1;\n");
    write("packages/core/src/e/index.ts", 'import { d } from "../d/leaf.ts";\nexport const e = d;\n');
    write("packages/core/src/e/leaf.ts", "export const e = 1;\n");
    write("site/src/lib/views.ts", 'import { axis } from "./charts/axis.ts";\nexport const views = axis;\n');
    write("site/src/lib/data.ts", "export const data = 1;\n");
    write("site/src/lib/charts/axis.ts", "export const axis = 1;\n");
    write("site/src/lib/charts/history.ts", 'import { data } from "../data.ts";\nexport const history = data;\n');
    write("packages/core/src/f/index.ts", 'import { g } from "../g/index.ts";\nexport const f = g;\n');
    write("packages/core/src/g/index.ts", "export const g = 1;\n");
    write("packages/core/src/g/index.test.ts", 'import { f } from "../f/index.ts";\nexport const t = f;\n');
    // A repository test that reaches into a package's folder, not through its name.
    write("test/x.test.ts", 'import { run } from "../packages/cli/src/main.ts";\nexport const t = run;\n');
    const { violations: found, modules } = await cruise(dir, ["packages", "site", "test"]);
    expect(found.filter((v) => v.from.startsWith("test/")).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([
      "no-relative-import-across-packages: test/x.test.ts → packages/cli/src/main.ts",
    ]);
    expect(new Set(found.map((v) => v.rule.name))).toEqual(
      new Set([
        "no-circular",
        "no-relative-import-across-packages",
        "core-imports-no-outer-layer",
        "components-do-not-read-the-store",
      ]),
    );
    // The only cycle between files is a/ ↔ b/: the folder cycles below are not cycles between files.
    expect(found.filter((v) => v.rule.name === "no-circular").map((v) => `${v.from} → ${v.to}`)).toEqual([
      "packages/core/src/a/index.ts → packages/core/src/b/index.ts",
    ]);
    expect(folderCycles(modules)).toEqual([
      "no-folder-cycle: packages/core/src/a → packages/core/src/b → packages/core/src/a" +
        " (packages/core/src/a/index.ts → packages/core/src/b/index.ts; packages/core/src/b/index.ts → packages/core/src/a/index.ts)",
      "no-folder-cycle: packages/core/src/d → packages/core/src/e → packages/core/src/d" +
        " (packages/core/src/d/index.ts → packages/core/src/e/leaf.ts; packages/core/src/e/index.ts → packages/core/src/d/leaf.ts)",
      "no-folder-cycle: site/src/lib → site/src/lib/charts → site/src/lib" +
        " (site/src/lib/views.ts → site/src/lib/charts/axis.ts; site/src/lib/charts/history.ts → site/src/lib/data.ts)",
    ]);
    // A branch on a kind outside kinds/ trips the rule; the same inside a kind's module, or in a test, does not.
    write("packages/core/src/h/index.ts", 'export const h = (load: { kind: string }) => load.kind === "trace";\n');
    write("site/src/lib/axis.ts", 'export const a = (axis: string) => (axis === "rate" ? 1 : 0);\n');
    write(
      "packages/core/src/kinds/trace/index.ts",
      'export const t = (load: { kind: string }) => load.kind === "trace";\n',
    );
    write("packages/core/src/h/index.test.ts", 'export const t = (load: { kind: string }) => load.kind === "trace";\n');
    write(
      "packages/core/src/i/index.ts",
      "export const i = (l: { conversation?: object }) => (l.conversation ? 1 : 0);\n",
    );
    write(
      "packages/cli/src/j.ts",
      'export const j = (k: string) => {\n  switch (k) {\n    case "open":\n      return 1;\n  }\n};\n',
    );
    write("packages/core/src/k/index.ts", "export const k = (openLoop: boolean) => openLoop;\n");
    write("site/src/kinds/open.ts", 'export const o = (kind: string) => kind === "open";\n');
    expect(kindBranches(dir).sort()).toEqual([
      'packages/cli/src/j.ts:3: cases-on-kind: "open"',
      'packages/core/src/h/index.ts:1: compares-kind: load.kind === "trace"',
      "packages/core/src/i/index.ts:1: tests-kind-figures: l.conversation",
      "packages/core/src/k/index.ts:1: open-loop-name: openLoop",
      "packages/core/src/k/index.ts:1: open-loop-name: openLoop",
      'site/src/lib/axis.ts:1: compares-kind: axis === "rate"',
    ]);
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
