/**
 * @module The `kneeboard` process: the commands the installed package leaves out, then `main`. Bundled
 * with everything it imports into the package's `kneeboard.js` (`scripts/build.ts`); in the
 * repository, `kneeboard.js` beside this file runs that bundle, or this file through tsx.
 */
import { existsSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

/**
 * Commands the package leaves out, with what they need: the site's sources and Astro, or the
 * repository's `sst.config.ts`. The bundle runs them from the sources when it sits in the repository.
 */
const LEFT_OUT: Record<string, string> = {
  site: "the site's sources and Astro",
  preview: "the site's sources and Astro",
  demo: "the site's sources and Astro",
  deploy: "the repository's sst.config.ts",
  "sweep-now": "the repository's sst.config.ts",
};

const FROM_SOURCES = import.meta.url.endsWith(".ts");

async function cli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const help = rest.includes("--help") || rest.includes("-h");
  if (!FROM_SOURCES && !help && command !== undefined && Object.hasOwn(LEFT_OUT, command)) {
    // The bundle in the repository (packages/cli/dist) has the sources beside it.
    const sources = new URL("../src/main.ts", import.meta.url);
    if (!existsSync(sources)) {
      process.stderr.write(
        `kneeboard ${command} needs ${LEFT_OUT[command]}, which the installed package leaves out: run it from a clone of the kneeboard repository.\n`,
      );
      return 2;
    }
    const { register } = await import("tsx/esm/api");
    register();
    const { main } = (await import(sources.href)) as typeof import("../src/main.ts");
    return main(argv);
  }
  const { main } = await import("../src/main.ts");
  return main(argv);
}

// A level's worker thread may load the module this code is bundled into: only the main thread runs the command.
if (isMainThread) process.exitCode = await cli(process.argv.slice(2));
