/**
 * @module The config file (docs/config.md): its schema (./schema.ts), the workload layers of a
 * (target, scenario) (./layers.ts), and reading and parsing a file (./file.ts).
 */
export * from "./file.ts";
export * from "./layers.ts";
export * from "./schema.ts";
