/**
 * The publish function's package builds the site: assembled as SST assembles it (`testing/sst-package.ts`)
 * in a folder outside the repository, so nothing resolves from the repository's node_modules, and the
 * site built from there, in a node of its own with Lambda's `LAMBDA_TASK_ROOT`, from a small store.
 * The install list comes from the repository's node_modules (offline, at the locked versions);
 * `KNEEBOARD_PACKAGE_NPM_INSTALL=1` runs SST's own `npm install` instead (about a minute, and the registry).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { syntheticRun } from "@kneeboard/core/synthetic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLISH_COPY_FILES, publishInstall, writeCorePackage } from "../site-package.ts";
import { copyFiles, copyInstalled, npmInstall, sstBundle } from "../testing/sst-package.ts";

const ROOT = process.cwd();
const TARGETS = [
  { id: "pkg-fast", label: "Package fast target" },
  { id: "pkg-slow", label: "Package slow target" },
];
const work = mkdtempSync(join(tmpdir(), "kneeboard-publish-package-"));
const pkg = join(work, "task");
const data = join(work, "data");
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(async () => {
  // Prepare: the package, as SST builds it, then zips it with the copied files.
  mkdirSync(pkg);
  const install = publishInstall(ROOT);
  await sstBundle(join(ROOT, "functions", "testing", "publish-site.ts"), pkg, Object.keys(install));
  if (process.env.KNEEBOARD_PACKAGE_NPM_INSTALL === "1") await npmInstall(pkg, install);
  else copyInstalled(pkg, install, ROOT);
  await writeCorePackage(pkg, ROOT); // the publish function's postbuild hook
  copyFiles(pkg, PUBLISH_COPY_FILES, ROOT);
  // A small store: two targets, three runs each.
  const store = new FolderStore(data);
  const index = new StoreRunIndex(store);
  for (const [i, t] of TARGETS.entries())
    for (let r = 0; r < 3; r++)
      await saveRun(
        store,
        index,
        syntheticRun({
          targetId: t.id,
          label: t.label,
          runId: `${t.id}-r${r}`,
          startedAt: new Date(Date.UTC(2026, 10, 1, 6 * r)).toISOString(),
          singleStreamTokensPerSecond: 60 + 60 * i,
          ttftMs: 200,
          saturationStreams: 4,
        }),
      );
}, 300_000);

describe("the publish function's package", () => {
  it("holds the bundle, the install list, @kneeboard/core and the site's sources, and no repository beside it", () => {
    for (const p of [
      "bundle.mjs",
      "node_modules/astro",
      "node_modules/@kneeboard/core/package.json",
      "site/src/pages/index.astro",
      "docs/methodology.md",
    ])
      expect(existsSync(join(pkg, p)), p).toBe(true);
    expect(existsSync(join(work, "node_modules")) || existsSync(join(tmpdir(), "node_modules"))).toBe(false);
  });

  it("builds the site from the store in Lambda's layout", async () => {
    // Act: a node of its own, from the package, with what Lambda sets (and /tmp its only writable place).
    const out = join(work, "tmp", "kneeboard-site");
    mkdirSync(join(work, "tmp"));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "const m = await import(process.argv[1]); const r = await m.buildFromFolder(process.argv[2], process.argv[3]); process.stdout.write(JSON.stringify({ handler: typeof m.handler, targets: r.targets }));",
        join(pkg, "bundle.mjs"),
        data,
        out,
      ],
      {
        cwd: pkg,
        env: { PATH: process.env.PATH, HOME: work, TMPDIR: join(work, "tmp"), LAMBDA_TASK_ROOT: pkg },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    // Assess
    expect(JSON.parse(stdout.slice(stdout.lastIndexOf("{")))).toEqual({ handler: "function", targets: 2 });
    const home = readFileSync(join(out, "index.html"), "utf8");
    for (const t of TARGETS) {
      expect(home).toContain(t.label);
      expect(existsSync(join(out, "targets", t.id, "index.html")), t.id).toBe(true);
    }
    expect(readFileSync(join(out, "methodology", "index.html"), "utf8")).toContain("<table");
  }, 300_000);
});
