/**
 * The architecture rules `npm test` checks (test/architecture.test.ts): no cycle, no relative import
 * from one package into another, the root's test/ and bench/ included (a package is imported by its
 * name and subpath), and dependencies
 * pointing inward (core imports no outer layer; site components take their data, never the store).
 * The test also fails on a cycle between folders, computed from this cruise's module graph: the
 * folder scope here counts a subfolder's modules as its parent's and cannot leave test files out.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "A cycle ties modules into one: a change to any of them is a change to all (type-only imports included).",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-relative-import-across-packages",
      severity: "error",
      comment: "Another package is imported by its name (@kneeboard/core/sweep), never by a path into its folder.",
      from: { path: "^(packages/[^/]+|functions|site)/" },
      to: {
        dependencyTypes: ["local"],
        dependencyTypesNot: ["aliased-workspace"],
        pathNot: ["^$1/"],
      },
    },
    {
      name: "no-relative-import-across-packages",
      severity: "error",
      comment:
        "The root's tests (test/) and benchmarks (bench/) import a package by its name too, never by a path into its folder.",
      from: { path: "^(test|bench)/" },
      to: {
        dependencyTypes: ["local"],
        dependencyTypesNot: ["aliased-workspace"],
        path: "^(packages|functions|site)/",
      },
    },
    {
      name: "core-imports-no-outer-layer",
      severity: "error",
      comment:
        "Core is the inside: the CLI, the site, the functions and the reference targets depend on it, never the reverse.",
      from: { path: "^packages/core/" },
      to: { path: "^(packages/(cli|reference)|site|functions)/" },
    },
    {
      name: "core-ships-no-test-support",
      severity: "error",
      comment: "Test helpers (local servers) are for core's tests, never its shipped code.",
      from: { path: "^packages/core/src/", pathNot: "\\.test\\.ts$" },
      to: { path: "^packages/test-support/" },
    },
    {
      name: "components-do-not-read-the-store",
      severity: "error",
      comment: "Site components render what they are given; reading runs is the loader's job.",
      from: { path: "^site/src/(components|layouts|pages)/" },
      to: { path: ["^packages/core/src/(store|run-index|aws)/", "@aws-sdk"] },
    },
    {
      name: "aws-sdk-only-in-aws-adapters",
      severity: "error",
      comment: "The AWS SDK sits in core's AWS adapters (and the CLI's AWS commands); the rest of core never sees it.",
      from: { path: "^packages/core/src/", pathNot: "^packages/core/src/aws/" },
      to: { path: "@aws-sdk" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["(^|/)dist/", "(^|/)\\.astro/", "(^|/)node_modules/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
