/** @module The one error base of kneeboard, and the typed errors callers branch on. */

/** Base of every error kneeboard throws on purpose; `cause` is passed through. */
export class KneeboardError extends Error {
  override name = "KneeboardError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** One problem in a config file, at a path such as `targets[1].route.provider`. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/**
 * The config is invalid; `problems` lists every problem found, not just the first. The message lists
 * them under the file's name, unless `summary` says it in one sentence (a file that is not there).
 */
export class ConfigError extends KneeboardError {
  override name = "ConfigError";
  constructor(
    readonly problems: ConfigProblem[],
    readonly file?: string,
    readonly summary?: string,
  ) {
    super(summary ?? `${file ?? "config"} is invalid:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join("\n")}`);
  }
}

/** The command line was used wrongly (unknown flag, missing value, unknown target id). */
export class UsageError extends KneeboardError {
  override name = "UsageError";
}

/** A store key or document could not be read or written. */
export class StoreError extends KneeboardError {
  override name = "StoreError";
}
