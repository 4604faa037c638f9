import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "functions/src/**/*.test.ts",
      "site/test/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Timing tests compare measurement with the engine's truth; files running side by side on two
    // cores would bend the very numbers they check.
    fileParallelism: false,
  },
});
