/** @module The `kneeboard` command line: `run`, `plan`, `check`, `site`, `preview`, `demo` (what `npm start` runs), `serve-reference`, and `deploy` and `sweep-now` for the AWS deployment. */
import { parseArgs } from "node:util";
import { loadConfig } from "@kneeboard/core/config";
import { ConfigError, UsageError } from "@kneeboard/core/errors";

// Each command loads its modules when it runs: `kneeboard run` need not load the site builder (Astro,
// vega), which on a busy machine took the process seconds to start.
const siteOutDir = async () => (await import("@kneeboard/site/build")).DEFAULT_OUT_DIR;

const USAGE = `usage:
  kneeboard run --config FILE [--data DIR] [--target ID]... [--repeat K]
  kneeboard plan --config FILE
  kneeboard check [--data DIR]
  kneeboard site [--data DIR] [--out DIR] [--config FILE]
  kneeboard preview [--out DIR] [--port N]
  kneeboard demo [--data DIR] [--out DIR]
  kneeboard serve-reference [--port N]
  kneeboard deploy --stage NAME [--config FILE]
  kneeboard sweep-now --stage NAME [--config FILE]`;

function portOf(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number, not ${text}`);
  return port;
}

/** Runs one command; resolves to the exit code (0 done, 1 internal failure, 2 bad config or usage). */
export async function main(argv: string[], io = { out: process.stdout, err: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "run": {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          options: {
            config: { type: "string" },
            data: { type: "string", default: "./data" },
            target: { type: "string", multiple: true },
            repeat: { type: "string", default: "1" },
          },
        });
        if (!values.config) throw new UsageError("run needs --config FILE");
        const repeat = Number(values.repeat);
        if (!Number.isInteger(repeat) || repeat < 1 || repeat > 1000)
          throw new UsageError(`--repeat must be a whole number of runs from 1 to 1000, not ${values.repeat}`);
        const { run } = await import("./run.ts");
        return await run({
          configFile: values.config,
          dataDir: values.data as string,
          targetIds: values.target ?? [],
          repeat,
          io,
        });
      }
      case "plan": {
        const { values } = parseArgs({ args: rest, strict: true, options: { config: { type: "string" } } });
        if (!values.config) throw new UsageError("plan needs --config FILE");
        const { plan } = await import("./plan.ts");
        return await plan({ configFile: values.config, io });
      }
      case "demo": {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          options: { data: { type: "string", default: "./data" }, out: { type: "string" } },
        });
        const dataDir = values.data as string;
        const [{ demo }, { check }, { site }] = await Promise.all([
          import("./run.ts"),
          import("./check.ts"),
          import("./site.ts"),
        ]);
        const code = await demo({ dataDir, io });
        if (code !== 0) return code;
        await check({ dataDir, io, webhookUrl: process.env.KNEEBOARD_WEBHOOK_URL });
        return await site({ dataDir, outDir: values.out ?? (await siteOutDir()), io });
      }
      case "check": {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          options: { data: { type: "string", default: "./data" } },
        });
        const { check } = await import("./check.ts");
        return await check({ dataDir: values.data as string, io, webhookUrl: process.env.KNEEBOARD_WEBHOOK_URL });
      }
      case "site": {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          options: {
            data: { type: "string", default: "./data" },
            out: { type: "string" },
            config: { type: "string" },
          },
        });
        // The config only says which runs the standing is taken over: no key is needed to build.
        const standing = values.config ? (await loadConfig(values.config, { requireKeys: false })).standing : undefined;
        const { site } = await import("./site.ts");
        return await site({ dataDir: values.data as string, outDir: values.out ?? (await siteOutDir()), io, standing });
      }
      case "preview": {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          options: { out: { type: "string" }, port: { type: "string", default: "4321" } },
        });
        const { preview } = await import("./site.ts");
        return await preview({ outDir: values.out ?? (await siteOutDir()), port: portOf(values.port as string), io });
      }
      case "serve-reference": {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          options: { port: { type: "string", default: "8787" } },
        });
        const { serveReference } = await import("./serve.ts");
        return await serveReference({ port: portOf(values.port as string), io });
      }
      case "deploy":
      case "sweep-now": {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          options: { stage: { type: "string" }, config: { type: "string" } },
        });
        // The file sst.config.ts deploys (KNEEBOARD_CONFIG, else kneeboard.config.json).
        const configFile = values.config ?? process.env.KNEEBOARD_CONFIG ?? "kneeboard.config.json";
        const aws = await import("./aws.ts");
        if (command === "sweep-now") return await aws.sweepNow({ configFile, stage: values.stage, io });
        if (!values.stage) throw new UsageError("deploy needs --stage NAME");
        return await aws.deploy({ stage: values.stage, configFile, io });
      }
      case undefined:
      case "help":
      case "--help":
        io.out.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err.write(`${error.message}\nnothing was written.\n`);
      return 2;
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.err.write(`${(error as Error).message}\n${USAGE}\n`);
      return 2;
    }
    io.err.write(
      `kneeboard: internal failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}
