/**
 * @module The functions' only contact with their environment: SST links (`SST_RESOURCE_<Name>`
 * variables holding JSON, what `Resource` from the sst package reads), the bundled config, and clients.
 */
import { readFileSync } from "node:fs";
import { DynamoAlertLedger, DynamoRunClaims, DynamoRunIndex, S3Store } from "@kneeboard/core/aws";
import { type Config, parseConfig } from "@kneeboard/core/config";

/** A linked resource's properties, e.g. `link("Results").name`. */
export function link(name: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const raw = env[`SST_RESOURCE_${name}`];
  if (!raw) throw new Error(`resource ${name} is not linked to this function`);
  return JSON.parse(raw) as Record<string, string>;
}

/** The config deployed with the functions (copied beside the bundle as `kneeboard.config.json`). */
export function deployedConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const file = env.KNEEBOARD_CONFIG_FILE ?? "kneeboard.config.json";
  return parseConfig(readFileSync(file, "utf8"), { file });
}

/** An API key: the SST secret named after the target's `apiKeyEnv`, else that environment variable. */
export function apiKeyFor(apiKeyEnv: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!apiKeyEnv) return undefined;
  const secret = env[`SST_RESOURCE_${apiKeyEnv}`];
  return secret ? (JSON.parse(secret) as { value: string }).value : env[apiKeyEnv];
}

/** The results store and the table's ports. */
export function stores(env: NodeJS.ProcessEnv = process.env) {
  const tableName = link("Table", env).name as string;
  return {
    store: new S3Store({ bucketName: link("Results", env).name as string }),
    index: new DynamoRunIndex({ tableName }),
    claims: new DynamoRunClaims({ tableName }),
    ledger: new DynamoAlertLedger({ tableName }),
  };
}
