/** @module The `kneeboard` command line: `run`, `plan`, `check`, `site`, `preview`, `demo` (what `npm start` runs), `serve-reference`, and `deploy` and `sweep-now` for the AWS deployment; `help`, `--help`, and `version` (`--version`, `-V`). What each command takes is in commands.ts. */
import { loadConfig } from "@kneeboard/core/config";
import { ConfigError, UsageError } from "@kneeboard/core/errors";
import cliPackage from "../package.json" with { type: "json" };
import {
  ArgumentsError,
  COMMANDS,
  type CommandName,
  commandHelp,
  isCommand,
  nearestCommand,
  parseCommand,
  synopsis,
  usage,
} from "./commands.ts";

// Each command loads its modules when it runs: `kneeboard run` need not load the site builder (Astro,
// vega), which on a busy machine took the process seconds to start.
const siteOutDir = async () => (await import("@kneeboard/site/build")).DEFAULT_OUT_DIR;

function portOf(text: string, command: CommandName): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ArgumentsError(`--port must be a port number, not ${text}`, command);
  return port;
}

/** An unknown command, the nearest known one where it looks like a typo, and the names of all. */
function unknownCommand(name: string): ArgumentsError {
  const near = nearestCommand(name);
  return new ArgumentsError(
    `unknown command ${name}${near ? ` (did you mean ${near}?)` : ""}; the commands are ${Object.keys(COMMANDS).join(", ")}`,
  );
}

/** Runs one command; resolves to the exit code (0 done, 1 internal failure, 2 bad config or usage). */
export async function main(argv: string[], io = { out: process.stdout, err: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        io.out.write(`${usage()}\n`);
        return 2;
      case "help":
      case "--help":
      case "-h": {
        const [about] = rest;
        if (about !== undefined && !isCommand(about)) throw unknownCommand(about);
        io.out.write(`${about === undefined ? usage() : commandHelp(about)}\n`);
        return 0;
      }
      case "version":
      case "--version":
      case "-V":
      case "-v":
        io.out.write(`${cliPackage.version}\n`);
        return 0;
    }
    if (!isCommand(command)) throw unknownCommand(command);
    const values = parseCommand(command, rest);
    if (values === "help") {
      io.out.write(`${commandHelp(command)}\n`);
      return 0;
    }
    switch (command) {
      case "run": {
        const repeat = Number(values.repeat);
        if (!Number.isInteger(repeat) || repeat < 1 || repeat > 1000)
          throw new ArgumentsError(
            `--repeat must be a whole number of runs from 1 to 1000, not ${values.repeat}`,
            command,
          );
        const { run } = await import("./run.ts");
        return await run({
          configFile: values.config as string,
          dataDir: values.data as string,
          targetIds: (values.target as string[] | undefined) ?? [],
          repeat,
          io,
        });
      }
      case "plan": {
        const { plan } = await import("./plan.ts");
        return await plan({ configFile: values.config as string, deployed: values.deployed === true, io });
      }
      case "demo": {
        const dataDir = values.data as string;
        const [{ demo }, { check }, { site }] = await Promise.all([
          import("./run.ts"),
          import("./check.ts"),
          import("./site.ts"),
        ]);
        const code = await demo({ dataDir, io });
        if (code !== 0) return code;
        await check({ dataDir, io, webhookUrl: process.env.KNEEBOARD_WEBHOOK_URL });
        return await site({ dataDir, outDir: (values.out as string | undefined) ?? (await siteOutDir()), io });
      }
      case "check": {
        const { check } = await import("./check.ts");
        return await check({ dataDir: values.data as string, io, webhookUrl: process.env.KNEEBOARD_WEBHOOK_URL });
      }
      case "site": {
        // The config only says which runs the standing is taken over: no key is needed to build.
        const standing = values.config
          ? (await loadConfig(values.config as string, { requireKeys: false })).standing
          : undefined;
        const { site } = await import("./site.ts");
        return await site({
          dataDir: values.data as string,
          outDir: (values.out as string | undefined) ?? (await siteOutDir()),
          io,
          standing,
        });
      }
      case "preview": {
        const { preview } = await import("./site.ts");
        const outDir = (values.out as string | undefined) ?? (await siteOutDir());
        return await preview({ outDir, port: portOf(values.port as string, command), io });
      }
      case "serve-reference": {
        const { serveReference } = await import("./serve.ts");
        return await serveReference({ port: portOf(values.port as string, command), io });
      }
      case "deploy":
      case "sweep-now": {
        // The file sst.config.ts deploys (KNEEBOARD_CONFIG, else kneeboard.config.json).
        const configFile =
          (values.config as string | undefined) ?? process.env.KNEEBOARD_CONFIG ?? "kneeboard.config.json";
        const stage = values.stage as string | undefined;
        const aws = await import("./aws.ts");
        if (command === "sweep-now") return await aws.sweepNow({ configFile, stage, io });
        return await aws.deploy({ stage: stage as string, configFile, io });
      }
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      // A config that is not there is one sentence; a list of problems ends by saying what did not happen.
      io.err.write(error.summary ? `${error.message}\n` : `${error.message}\nnothing was written.\n`);
      return 2;
    }
    // A command line that does not parse is followed by the command's usage; other usage errors
    // (an unknown target id, a --data that is no store) are one sentence that says it all.
    if (error instanceof ArgumentsError) {
      const more = error.command
        ? `usage: ${synopsis(error.command)}\n(kneeboard help ${error.command} says more)`
        : "(kneeboard help says what each does)";
      io.err.write(`${error.message}\n${more}\n`);
      return 2;
    }
    if (error instanceof UsageError) {
      io.err.write(`${error.message}\n`);
      return 2;
    }
    io.err.write(
      `kneeboard: internal failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}
