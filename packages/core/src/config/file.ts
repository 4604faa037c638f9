/**
 * @module A config file read and parsed: `loadConfig` and `parseConfig` report every problem with its
 * path in the file, with the checks that need the file as written and its environment.
 */
import { readFile } from "node:fs/promises";
import { ConfigError } from "../errors/index.ts";
import { issueMessage, problemsOf } from "./issues.ts";
import { scenarioNames } from "./layers.ts";
import { ALWAYS, isObject, problem, targetsOf } from "./refine.ts";
import { Config, type Scenarios } from "./schema.ts";

export interface ParseOptions {
  /** File name for messages. */
  file?: string;
  /** Where apiKeyEnv variables are looked up (default process.env). */
  env?: Record<string, string | undefined>;
  /** Check that every apiKeyEnv variable is set (default true). */
  requireKeys?: boolean;
}

/** Parses and checks a config; throws ConfigError naming every problem with its path. */
export function parseConfig(text: string, options: ParseOptions = {}): Config {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      [{ path: "(file)", message: `not valid JSON${jsonLocation(text, error)}: ${(error as Error).message}` }],
      options.file,
    );
  }
  const parsed = schemaFor(json, options).safeParse(json, { error: issueMessage });
  if (!parsed.success)
    throw new ConfigError(
      parsed.error.issues.flatMap((issue) => problemsOf(issue)),
      options.file,
    );
  return parsed.data;
}

/**
 * `Config` with the checks that need the file as written and its environment: a target's scenario
 * the file does not name (invalid names count) or that the target lists twice, and an apiKeyEnv
 * variable not set in `env` (the problem names the variable, never its value).
 */
function schemaFor(json: unknown, { env = process.env, requireKeys = true }: ParseOptions) {
  // The file's own names, invalid ones too (zod leaves those out of the value); none when `scenarios`
  // is not an object, so targets' lists are not judged against it.
  const { scenarios } = (json ?? {}) as { scenarios?: unknown };
  const names =
    scenarios === undefined || isObject(scenarios) ? scenarioNames({ scenarios: scenarios as Scenarios }) : undefined;
  return Config.superRefine((config, ctx) => {
    targetsOf(config).forEach((target, i) => {
      if (Array.isArray(target.scenarios))
        target.scenarios.forEach((name: unknown, j, all: unknown[]) => {
          const at = ["targets", i, "scenarios", j];
          if (typeof name !== "string") return;
          if (names && !names.includes(name))
            problem(
              ctx,
              at,
              `unknown scenario ${JSON.stringify(name)}; the config's scenarios are ${names.join(", ")}`,
            );
          else if (all.indexOf(name) < j)
            problem(ctx, at, `duplicate scenario ${name} (also targets[${i}].scenarios[${all.indexOf(name)}])`);
        });
      if (requireKeys && typeof target.apiKeyEnv === "string" && !env[target.apiKeyEnv])
        problem(ctx, ["targets", i, "apiKeyEnv"], `environment variable ${target.apiKeyEnv} is not set or empty`);
    });
  }, ALWAYS);
}

/** " at line L, column C" from a JSON.parse error, when V8 gave a position. */
function jsonLocation(text: string, error: unknown): string {
  const match = /position (\d+)/.exec(String((error as Error).message));
  const position = match
    ? Number(match[1])
    : /end of JSON input/.test(String((error as Error).message))
      ? text.length
      : undefined;
  if (position === undefined) return "";
  const before = text.slice(0, position).split("\n");
  return ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** Reads and parses a config file. */
export async function loadConfig(file: string, options: Omit<ParseOptions, "file"> = {}): Promise<Config> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "does not exist"
        : code === "EISDIR"
          ? "is a folder, not a file"
          : code === "EACCES"
            ? "cannot be read: permission denied"
            : `cannot be read (${code ?? String(error)})`;
    throw new ConfigError([{ path: "(file)", message: why }], file, `config file ${file} ${why}`);
  }
  return parseConfig(text, { ...options, file });
}
