/**
 * @module How the Lambda bundles are built (used by sst.config.ts and measured by `npm run bench`).
 * zod's namespace re-exports every locale's messages (about 250 KB); errors here are in English, so
 * the locale index is replaced by English alone.
 */
import { dirname, join } from "node:path";
import type { BuildOptions, Plugin } from "esbuild";

const englishOnly: Plugin = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), args.path), namespace: "zod-locales" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * esbuild options for the functions: ESM needs `require` for CommonJS dependencies. The banner's import
 * is renamed: a bundled module importing `createRequire` itself would otherwise declare it twice.
 */
export const lambdaEsbuild: BuildOptions = {
  plugins: [englishOnly],
  banner: {
    js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
  },
};
