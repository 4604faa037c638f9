/**
 * @module `npm run build -w packages/cli`: the `kneeboard` package, compiled, in packages/cli/dist (or
 * `--out DIR`): the CLI and every module it imports (the workspace packages, zod, openai) bundled into
 * plain ES modules, with a package.json that names it `kneeboard` and has no dependencies, so that
 * `npm pack dist` gives a tarball that installs without a registry. The commands the package leaves out
 * (`bin/entry.ts`'s list: the site and the deploy) are not bundled.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, posix, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { lambdaEsbuild } from "@kneeboard/functions/bundle";
import { build, type Plugin } from "esbuild";

const CLI = resolve(import.meta.dirname, "..");
const ROOT = resolve(CLI, "../..");

/**
 * The modules of the commands the package leaves out (site and preview need Astro and the site's
 * sources; deploy and sweep-now the repository's sst.config.ts): a module that throws in their place.
 * The entry answers those commands before it would load one.
 */
const leaveOut: Plugin = {
  name: "leave-out",
  setup(build) {
    const left = (path: string) => ({ path, namespace: "left-out" });
    build.onResolve({ filter: /^@kneeboard\/site(\/|$)/ }, (args) => left(args.path));
    build.onResolve({ filter: /^\.\/(site|aws)\.ts$/ }, (args) =>
      args.importer === join(CLI, "src", "main.ts") ? left(args.path) : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "left-out" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is left out of the kneeboard package`)});`,
    }));
  },
};

const { values } = parseArgs({ options: { out: { type: "string", default: join(CLI, "dist") } } });
const outDir = resolve(values.out as string);
const cliPackage = JSON.parse(readFileSync(join(CLI, "package.json"), "utf8"));
const rootPackage = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

rmSync(outDir, { recursive: true, force: true });
const result = await build({
  entryPoints: { kneeboard: join(CLI, "bin", "entry.ts") },
  outdir: outDir,
  bundle: true,
  // Each command's modules in their own chunks, loaded when it runs, as from the sources: `--version`
  // and `plan` do not parse the client. A worker thread of a sweep loads the chunk of the sweep's
  // threads module, which holds (or imports) the thread's code.
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Every output file starts with the hashbang; CommonJS code bundled into ES modules needs `require`.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
  },
  // tsx only for the left-out commands in the repository, where it is installed.
  external: ["tsx", "tsx/*"],
  // The Lambdas' plugins: zod's error messages in English alone (its other locales are about 250 KB
  // that every command would parse at start-up).
  plugins: [leaveOut, ...(lambdaEsbuild.plugins ?? [])],
  absWorkingDir: ROOT,
  metafile: true,
  logLevel: "warning",
});

/** The pages a user of the package's commands reads, shipped beside them, and the JSON Schemas they name. */
const DOCS = ["docs/config.md", "docs/methodology.md", "docs/run-document.md"];
const SCHEMAS = ["schemas/config.schema.json", "schemas/run.schema.json"];

/**
 * A page as shipped: a link to a file the package does not ship (another page, an example) becomes its
 * text and the file's path in the repository, so no link of the package leads nowhere.
 */
function shippedPage(markdown: string, page: string, shipped: string[]): string {
  return markdown.replace(/\[([^\]]+)\]\(([^)#\s]+)(#[^)\s]*)?\)/g, (link, text: string, target: string) => {
    if (/^[a-z]+:/.test(target)) return link;
    const path = posix.normalize(posix.join(posix.dirname(page), target));
    return shipped.includes(path) ? link : `${text} (the repository's \`${path}\`)`;
  });
}

/** The package's manifest: the name and bin for publishing, no dependencies (all are bundled). */
const manifest = {
  name: "kneeboard",
  version: cliPackage.version,
  description: rootPackage.description,
  type: "module",
  bin: { kneeboard: "kneeboard.js" },
  files: ["*.js", "docs", "schemas"],
  engines: cliPackage.engines,
  license: cliPackage.license,
};
writeFileSync(join(outDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
copyFileSync(join(ROOT, "LICENSE"), join(outDir, "LICENSE"));
for (const path of [...DOCS, ...SCHEMAS]) mkdirSync(join(outDir, posix.dirname(path)), { recursive: true });
for (const path of SCHEMAS) copyFileSync(join(ROOT, path), join(outDir, path));
for (const path of DOCS)
  writeFileSync(join(outDir, path), shippedPage(readFileSync(join(ROOT, path), "utf8"), path, [...DOCS, ...SCHEMAS]));
writeFileSync(
  join(outDir, "README.md"),
  `# kneeboard

${rootPackage.description}

\`kneeboard plan --config FILE\`, \`kneeboard run --config FILE\`, \`kneeboard check\`, \`kneeboard serve-reference\`; \`kneeboard help\` lists them. The site and the deployment run from a clone of the repository.

- [docs/config.md](docs/config.md): the config file, field by field. Its JSON Schema ships here too: a config in the folder you installed into gets completion and checks in an editor with \`"$schema": "./node_modules/kneeboard/schemas/config.schema.json"\`.
- [docs/methodology.md](docs/methodology.md): how a sweep measures, when a level is valid, and what each figure means.
- [docs/run-document.md](docs/run-document.md): the run document \`kneeboard run\` stores (its JSON Schema: [schemas/run.schema.json](schemas/run.schema.json)).
`,
);
// The sources the bundle was built from (the workspace's, not node_modules'), for bin/kneeboard.js to
// tell a stale build: paths relative to the output folder.
const inputs = Object.keys(result.metafile.inputs)
  .filter((path) => !path.includes("node_modules/") && !path.includes(":"))
  .map((path) => relative(outDir, resolve(ROOT, path)).split("\\").join("/"));
writeFileSync(join(outDir, "inputs.json"), `${JSON.stringify(inputs)}\n`);
