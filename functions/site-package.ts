/**
 * @module What the publish function's package holds besides its bundle, so that Astro can build the
 * site inside Lambda (used by sst.config.ts, checked by `src/publish-package.test.ts`). Astro compiles
 * the pages there, and the pages import `@kneeboard/core/*`, a workspace package no registry serves:
 * it goes in as a bundled copy (zod and the rest inlined) under the package's `node_modules`, beside
 * the packages npm installs.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { build } from "esbuild";

/**
 * The repository, where SST and vitest run. Not this file's URL: SST bundles sst.config.ts and what it
 * imports before running it, elsewhere.
 */
const REPO_ROOT = process.cwd();

/** Installed from the registry into the package (`nodejs.install`): Astro with its native binaries, and vega/vega-lite, which charts and the site's downloads need as files. */
export const PUBLISH_INSTALL = ["astro", "vega", "vega-lite"] as const;

/**
 * The install list with the site's own versions: SST writes `"*"` for a package the nearest
 * package.json (the functions') does not list, which would take whatever is newest.
 */
export function publishInstall(root = REPO_ROOT): Record<string, string> {
  const site = JSON.parse(readFileSync(join(root, "site", "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  return Object.fromEntries(PUBLISH_INSTALL.map((p) => [p, site.dependencies[p] as string]));
}

/** What sst.config.ts copies into the package: the site's sources and the page the methodology renders. */
export const PUBLISH_COPY_FILES = [
  { from: "site/src", to: "site/src" },
  { from: "docs/methodology.md", to: "docs/methodology.md" },
];

/** Every `@kneeboard/core/<subpath>` the site's sources import (pages, components, libraries). */
export function siteCoreImports(root = REPO_ROOT): string[] {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|astro)$/.test(entry.name) && !entry.name.endsWith(".test.ts"))
        for (const m of readFileSync(path, "utf8").matchAll(/["']@kneeboard\/core\/([\w/-]+)["']/g))
          found.add(m[1] as string);
    }
  };
  walk(join(root, "site", "src"));
  return [...found].sort();
}

/**
 * Writes `node_modules/@kneeboard/core` into a function's folder: one ESM file per subpath the site
 * imports, split so that modules they share exist once (an `instanceof` across subpaths holds), with
 * every dependency inlined but the installed ones. SST calls it as the publish function's `postbuild`
 * hook, after its `npm install` and before it zips the folder. Returns the files written.
 */
export async function writeCorePackage(functionDir: string, root = REPO_ROOT): Promise<string[]> {
  const subpaths = siteCoreImports(root);
  const core = JSON.parse(readFileSync(join(root, "packages", "core", "package.json"), "utf8")) as {
    exports: Record<string, string>;
  };
  const outdir = join(functionDir, "node_modules", "@kneeboard", "core");
  const entryPoints = Object.fromEntries(
    subpaths.map((sub) => {
      const source = core.exports[`./${sub}`];
      if (!source) throw new Error(`the site imports @kneeboard/core/${sub}, which core does not export`);
      return [sub, join(root, "packages", "core", source)];
    }),
  );
  const result = await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    external: [...PUBLISH_INSTALL],
    metafile: true,
    logLevel: "silent",
  });
  writeFileSync(
    join(outdir, "package.json"),
    `${JSON.stringify(
      {
        name: "@kneeboard/core",
        private: true,
        type: "module",
        exports: Object.fromEntries(subpaths.map((sub) => [`./${sub}`, `./${sub}.mjs`])),
      },
      null,
      2,
    )}\n`,
  );
  return Object.keys(result.metafile.outputs).map((f) => relative(outdir, join(process.cwd(), f)));
}
