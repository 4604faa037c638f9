/**
 * @module A Lambda package assembled the way SST 4.17.1 assembles a Node function's folder
 * (`pkg/runtime/node/build.go`, then the zip of `platform/src/components/aws/function.ts`): the handler
 * bundled by esbuild with SST's options into `bundle.mjs`, a package.json of the install list and
 * `npm install` of it, the `postbuild` hook, then the `copyFiles`. SST applies none of `nodejs.esbuild`
 * but `external`, `target` and a few others: `functions/bundle.ts`'s plugin and banner do not reach it.
 */
import { execFile } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";

/** Always external in SST's bundles (and installed when imported). */
const FORCE_EXTERNAL = ["sharp", "pg-native"];

/** SST's banner for ESM bundles: `require`, `__filename` and `__dirname` for CommonJS dependencies. */
const SST_ESM_BANNER = [
  `import { createRequire as topLevelCreateRequire } from 'module';`,
  "const require = topLevelCreateRequire(import.meta.url);",
  `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"`,
  "const __filename = topLevelFileUrlToPath(import.meta.url)",
  `const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))`,
].join("\n");

/** Bundles `entry` into `<dir>/bundle.mjs` as SST does for an ESM function on nodejs22.x. */
export async function sstBundle(entry: string, dir: string, install: readonly string[]): Promise<string> {
  const outfile = join(dir, "bundle.mjs");
  await build({
    entryPoints: [entry],
    platform: "node",
    external: [...FORCE_EXTERNAL, ...install],
    keepNames: true,
    bundle: true,
    metafile: true,
    outfile,
    sourcemap: "linked",
    format: "esm",
    target: "es2023",
    mainFields: ["module", "main"],
    banner: { js: SST_ESM_BANNER },
    logLevel: "silent",
  });
  return outfile;
}

/** SST's install: the list written as the folder's package.json, then npm for Lambda's platform. */
export async function npmInstall(dir: string, install: Record<string, string>): Promise<void> {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies: install }));
  await promisify(execFile)(
    "npm",
    ["install", "--force", "--platform=linux", "--os=linux", "--arch=x64", "--cpu=x64", "--no-audit", "--no-fund"],
    { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
  );
}

/** The folder of package `name` as node finds it from `from` (its node_modules, then its parents'), not above `root`. */
function packageDir(name: string, from: string, root: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/**
 * The offline stand-in for `npmInstall`: the install list and everything it depends on (dependencies,
 * and the optional and peer ones that are there) copied from `root`'s node_modules at the same relative
 * places, so each resolves to the version it resolves to in the repository, and nothing else is there.
 * Returns how many packages it copied.
 */
export function copyInstalled(dir: string, install: Record<string, string>, root: string): number {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies: install }));
  const seen = new Set<string>();
  const queue: [string, string, boolean][] = Object.keys(install).map((n) => [n, root, true]);
  for (let next = queue.pop(); next; next = queue.pop()) {
    const [name, from, required] = next;
    const found = packageDir(name, from, root);
    if (!found) {
      if (required) throw new Error(`${name} (needed from ${from}) is not installed`);
      continue;
    }
    if (seen.has(found)) continue;
    seen.add(found);
    const pkg = JSON.parse(readFileSync(join(found, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    for (const d of Object.keys(pkg.dependencies ?? {})) queue.push([d, found, true]);
    for (const d of Object.keys({ ...pkg.optionalDependencies, ...pkg.peerDependencies }))
      queue.push([d, found, false]);
  }
  for (const src of seen) linkTree(src, join(dir, relative(root, src)), join(src, "node_modules"));
  return seen.size;
}

/**
 * `to` made a copy of the tree `from` (but `skip`), each file a hard link to the original where the
 * file system allows (else a copy), symbolic links as they are. A hard link is a name of its own at
 * its own path: node resolves and reads it from `to`, as it would a copy. Linking, not copying, is what
 * keeps this quick on a disk mounted with `discard`: a few hundred MB of copies took seconds to write
 * and tens of seconds to remove, links neither. The package must be read-only to the code run from it
 * (as Lambda's task root is): a write through a link would change the original.
 */
function linkTree(from: string, to: string, skip?: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (source === skip) continue;
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
    }
  }
}

/** SST's `copyFiles`: each `from` (relative to the repository) at `to` in the package. */
export function copyFiles(dir: string, files: readonly { from: string; to: string }[], root: string): void {
  for (const { from, to } of files) {
    mkdirSync(dirname(join(dir, to)), { recursive: true });
    cpSync(join(root, from), join(dir, to), { recursive: true });
  }
}
