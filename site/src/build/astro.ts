/**
 * @module The build's second job: run Astro on a copy of the site's sources, with the site index file (`lib/site-index.ts`)
 * the pages read (named by an environment variable), writing only under `outDir` and the work folder.
 */
import { cp, mkdir, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "astro";
import type { Plugin } from "vite";
import { SITE_DATA_ENV } from "../lib/site-index.ts";

const require = createRequire(import.meta.url);

/**
 * Which pages a build renders: every page, or a page batch's (`targets`): its targets' and their
 * models' pages (under `TARGET_PAGE_DIRS`) without the pages every target shares (rankings, compare,
 * data, alerts, methodology), which the rebuild's finishing step renders once.
 */
export type PageSet = "all" | "targets";
const TARGET_PAGE_DIRS = ["targets", "models"];

/**
 * A copy of the site's sources under work, with the installed packages linked beside it: Astro writes
 * into its root (`.astro/`), and the real sources may be read-only (Lambda's /var/task).
 */
async function sourcesCopy(siteRoot: string, work: string, pages: PageSet): Promise<string> {
  const root = join(work, "site");
  const pagesDir = join(siteRoot, "src", "pages");
  // Astro renders every page source it finds: a build of the targets' pages alone leaves the others out.
  const wanted = (path: string) =>
    pages === "all" ||
    !path.startsWith(`${pagesDir}${sep}`) ||
    TARGET_PAGE_DIRS.some((d) => path.startsWith(join(pagesDir, d)));
  await cp(join(siteRoot, "src"), join(root, "src"), { recursive: true, filter: wanted });
  const astro = require.resolve("astro");
  const nodeModules = astro.slice(0, astro.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  await symlink(nodeModules, join(root, "node_modules"), "dir");
  return root;
}

/**
 * Installed packages (zod, ajv, Astro's runtime) left out of the server chunks and imported from where
 * they are installed, by their file URL: the chunks run from outDir, where no node_modules is to
 * resolve a package's name. Bundling them made Rollup parse about 2 MB a build, half a build's CPU, for
 * the same pages. The site's own sources (`.astro`, `.ts`, and `@kneeboard/core`'s, linked in from the
 * workspace) are bundled as before; so are virtual modules and anything that is not a JavaScript file.
 */
function importInstalledPackages(): Plugin {
  return {
    name: "kneeboard:import-installed-packages",
    enforce: "pre",
    async resolveId(source, importer) {
      if (/^[./\0]/.test(source) || source.includes(":")) return null;
      const resolved = await this.resolve(source, importer, { skipSelf: true });
      if (!resolved || resolved.external || !/[\\/]node_modules[\\/][^?]*\.[cm]?js$/.test(resolved.id)) return null;
      return { id: pathToFileURL(resolved.id).href, external: true };
    },
  };
}

export interface RunAstroOptions {
  /** The site package's folder (its `src/` holds the pages). */
  siteRoot: string;
  /** A scratch folder the caller removes afterwards. */
  work: string;
  /** The site index the pages read (`lib/site-index.ts`). */
  payloadFile: string;
  /** An absolute path; Astro replaces what is there. */
  outDir: string;
  /** Default every page. */
  pages?: PageSet;
}

/** Builds the pages into outDir. */
export async function runAstro(options: RunAstroOptions): Promise<void> {
  const { work, outDir } = options;
  const root = await sourcesCopy(options.siteRoot, work, options.pages ?? "all");
  process.env[SITE_DATA_ENV] = options.payloadFile;
  process.env.ASTRO_TELEMETRY_DISABLED = "1";
  // Astro 5 has no option for it: it puts its intermediate server build in `<cwd>/.astro/` unless
  // outDir lies under cwd (`getOutDirWithinCwd` reads process.cwd()), and cwd may be read-only
  // (Lambda's /var/task). So the build runs from outDir's parent and all writes stay there.
  const cwd = process.cwd();
  await mkdir(dirname(outDir), { recursive: true });
  process.chdir(dirname(outDir));
  try {
    await build({
      root,
      configFile: false,
      outDir,
      cacheDir: join(work, "cache"),
      logLevel: "warn",
      output: "static",
      trailingSlash: "always",
      build: { format: "directory", inlineStylesheets: "always" },
      // Bundle the site's sources into the server chunks, and import installed packages from where
      // they are (`importInstalledPackages`): the chunks run from outDir, where no node_modules is.
      vite: {
        cacheDir: join(work, "vite"),
        logLevel: "warn",
        ssr: { noExternal: true },
        plugins: [importInstalledPackages()],
      },
      devToolbar: { enabled: false },
    } as Parameters<typeof build>[0]);
  } finally {
    process.chdir(cwd);
    delete process.env[SITE_DATA_ENV];
  }
}
