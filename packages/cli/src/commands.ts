/**
 * @module The commands of `kneeboard`, each once: what it does, its options with their defaults, the
 * environment it reads and its exit codes. The general usage, each command's help and the parsing of
 * its arguments all read this table, so they cannot drift apart.
 */
import { parseArgs } from "node:util";
import { UsageError } from "@kneeboard/core/errors";
import { DEFAULT_DETECTOR } from "@kneeboard/core/regress";

/** One `--name VALUE` option of a command, or a `--name` switch (no `value`). */
export interface OptionSpec {
  /** What the value stands for in the usage: FILE, DIR, ID, N; none for a switch. */
  value?: string;
  /** What the option sets, in a few words. */
  about: string;
  /** The value when the option is not given, passed to the parser as is. */
  default?: string;
  /** The default as help says it, where it is not a fixed value (the parser gets none). */
  defaultText?: string;
  /** The command refuses to run without it. */
  required?: boolean;
  /** It may be given more than once. */
  multiple?: boolean;
}

/** One command of the table. */
export interface CommandSpec {
  /** What the command does, one line. */
  summary: string;
  /** What a user should know before running it, printed under the summary in its help. */
  notes?: string[];
  options: Record<string, OptionSpec>;
  /** Environment variables the command reads, and what for. */
  env?: Record<string, string>;
  /** Exit code (or `other`) -> when the command exits with it. */
  exitCodes: Record<string, string>;
}

const INTERNAL = "an internal failure (a bug: the message says where)";
const DATA: OptionSpec = { value: "DIR", about: "the store folder", default: "./data" };
const OUT: OptionSpec = { value: "DIR", about: "the built site's folder", defaultText: "site/dist" };
const WEBHOOK = {
  KNEEBOARD_WEBHOOK_URL:
    "a Slack-compatible webhook: each new or resolved regression is posted to it once (never printed)",
};
const DEPLOYED_CONFIG: OptionSpec = {
  value: "FILE",
  about: "the config deployed",
  defaultText: "$KNEEBOARD_CONFIG, else kneeboard.config.json",
};

/** How much history a regression needs, from the detector's own settings: `check` prints it, its help too. */
export const HISTORY_NEEDED = `a (target, scenario) is judged for regressions once it has ${DEFAULT_DETECTOR.minBaselineRuns} complete runs with a valid level (its baseline); a shift then alerts when ${DEFAULT_DETECTOR.confirmRuns} runs confirm it, a throughput under ${DEFAULT_DETECTOR.catastrophicFraction * 100} % of its baseline on its first`;

/** Every command, in the order the usage lists them. */
export const COMMANDS = {
  run: {
    summary: "sweep each (target, scenario) of a config and store one run document per run",
    notes: [
      "The reference routes (targets[].reference) are swept first: a run is judged against the reference's runs started before it. A run with tool calls prints its shares; after the sweeps, each one's tool-call verdict against its model's reference is printed, as `check` will record it.",
    ],
    options: {
      config: { value: "FILE", about: "the config file (docs/config.md)", required: true },
      data: { ...DATA, about: "the store folder, made when missing" },
      target: {
        value: "ID",
        about: "sweep only this target; repeat for more",
        defaultText: "every target",
        multiple: true,
      },
      repeat: {
        value: "K",
        about: "runs of each (target, scenario), interleaved across the pairs, 1 to 1000",
        default: "1",
      },
    },
    exitCodes: {
      0: "the sweep finished (failed requests are data, not errors)",
      1: `a run failed (no valid level; the likely cause is said, and the run is kept as history), or ${INTERNAL}`,
      2: "an invalid config or usage: nothing sent or written, every problem named",
      130: "interrupted (Ctrl-C): the level in flight ends and the run is stored partial",
    },
  },
  plan: {
    summary:
      "check a config and print what each sweep will send, how long it may take and what it costs, sending nothing",
    options: {
      config: { value: "FILE", about: "the config file (docs/config.md)", required: true },
      deployed: {
        about:
          "also size the AWS deployment (Lambda invocations, memory, cost) when every target is on this machine; it is printed anyway otherwise",
      },
    },
    exitCodes: {
      0: "the config is valid",
      1: INTERNAL,
      2: "an invalid config or usage, or a sweep none of whose levels can be valid",
    },
  },
  check: {
    summary: "detect regressions over the store's history; write alerts.json and the Atom feeds",
    notes: [
      `${HISTORY_NEEDED.charAt(0).toUpperCase()}${HISTORY_NEEDED.slice(1)}.`,
      "It prints each tool-call verdict it records (against the model's reference route, with its cause and the run's shares) and each new or changed alert, a tool-call alert with its cause and counts.",
    ],
    options: { data: { ...DATA, about: "the store folder (one `kneeboard run` wrote)" } },
    env: WEBHOOK,
    exitCodes: {
      0: "checked (alerts are findings, not failures)",
      1: INTERNAL,
      2: "usage, or --data names no store: nothing written",
    },
  },
  site: {
    summary: "build the static site from the store",
    options: {
      data: DATA,
      out: OUT,
      config: {
        value: "FILE",
        about: "a config whose `standing` sets which runs the figures are taken over",
        defaultText: "the last 72 hours, at most 24 runs",
      },
    },
    exitCodes: { 0: "built", 1: INTERNAL, 2: "an invalid config or usage: nothing built" },
  },
  preview: {
    summary: "serve the built site on 127.0.0.1 until Ctrl-C",
    options: { out: OUT, port: { value: "N", about: "the port", default: "4321" } },
    exitCodes: { 0: "stopped (Ctrl-C)", 1: INTERNAL, 2: "usage" },
  },
  demo: {
    summary: "what `npm start` runs: sweep the built-in reference targets, check, build the site",
    options: { data: DATA, out: OUT },
    env: WEBHOOK,
    exitCodes: { 0: "done", 1: `a run failed, or ${INTERNAL}`, 2: "usage" },
  },
  "serve-reference": {
    summary: "serve the simulated reference targets as OpenAI-compatible endpoints on 127.0.0.1 until Ctrl-C",
    options: { port: { value: "N", about: "the port", default: "8787" } },
    exitCodes: { 0: "stopped (Ctrl-C)", 1: INTERNAL, 2: "usage" },
  },
  deploy: {
    summary: "deploy a stage to AWS with `sst deploy`, then start its first sweep (docs/deploying.md)",
    options: {
      stage: { value: "NAME", about: "the SST stage", required: true },
      config: DEPLOYED_CONFIG,
    },
    env: {
      SST_TELEMETRY_DISABLED: "1 turns off the usage telemetry sst sends (sst reads it; DO_NOT_TRACK=1 too)",
    },
    exitCodes: {
      0: "deployed and the first sweep queued",
      1: INTERNAL,
      2: "a missing or invalid config, or usage: checked before anything of sst runs",
      other: "`sst deploy` failed, with its own code",
    },
  },
  "sweep-now": {
    summary: "queue a sweep of every (target, scenario) on a deployed stage now, then rebuild its site",
    options: {
      stage: { value: "NAME", about: "the SST stage", defaultText: "none needed under `sst shell`" },
      config: DEPLOYED_CONFIG,
    },
    exitCodes: {
      0: "queued",
      1: INTERNAL,
      2: "a missing or invalid config, or usage: checked before anything of sst runs",
    },
  },
} satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

const NAMES = Object.keys(COMMANDS) as CommandName[];

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The command `name` most likely meant (`plna`: plan), or `version` and `help`: the nearest within two
 * edits, and within a third of the name; null when none is that near, or two are.
 */
export function nearestCommand(name: string): string | null {
  const known = [...NAMES, "help", "version"];
  const limit = Math.min(2, Math.max(1, Math.floor(name.length / 3)));
  const scored = known.map((k) => ({ k, d: editDistance(name.toLowerCase(), k) })).filter((s) => s.d <= limit);
  const best = Math.min(...scored.map((s) => s.d));
  const nearest = scored.filter((s) => s.d === best);
  return nearest.length === 1 ? (nearest[0] as { k: string }).k : null;
}

/** Whether `name` is a command of the table. */
export const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

const spec = (name: CommandName): CommandSpec => COMMANDS[name];

/** `--config FILE`, or `--deployed` for a switch. */
export const optionText = (option: string, o: OptionSpec): string =>
  o.value === undefined ? `--${option}` : `--${option} ${o.value}`;

/** `kneeboard run --config FILE [--data DIR] [--target ID]... [--repeat K]` */
export function synopsis(name: CommandName): string {
  const options = Object.entries(spec(name).options).map(([option, o]) => {
    const text = optionText(option, o);
    return o.required ? text : `[${text}]${o.multiple ? "..." : ""}`;
  });
  return ["kneeboard", name, ...options].join(" ");
}

/** The general usage: every command's synopsis and what it does. */
export function usage(): string {
  return [
    "usage: kneeboard <command> [options]",
    "",
    ...NAMES.flatMap((name) => [`  ${synopsis(name).slice("kneeboard ".length)}`, `      ${spec(name).summary}`]),
    "",
    "`kneeboard help <command>` (or `kneeboard <command> --help`) gives its options, defaults and exit codes;",
    "`kneeboard version` (or `--version`, `-V`) prints the version.",
  ].join("\n");
}

/** Aligned two-column lines: `  left  right`. */
function columns(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

/** One command's help: what it does, its usage, options with their defaults, environment and exit codes. */
export function commandHelp(name: CommandName): string {
  const { summary, notes, options, env, exitCodes } = spec(name);
  const optionRows = Object.entries(options).map(([option, o]): [string, string] => {
    const fallback = o.required ? "required" : (o.defaultText ?? o.default);
    return [optionText(option, o), fallback ? `${o.about}; ${o.required ? "" : "default "}${fallback}` : o.about];
  });
  return [
    `kneeboard ${name}: ${summary}.`,
    ...(notes ?? []),
    "",
    `usage: ${synopsis(name)}`,
    "",
    "options:",
    ...columns([...optionRows, ["-h, --help", "print this help"]]),
    ...(env ? ["", "environment:", ...columns(Object.entries(env))] : []),
    "",
    "exit codes:",
    ...columns(Object.entries(exitCodes)),
  ].join("\n");
}

/** A command line that cannot be parsed; main prints the command's usage after it. */
export class ArgumentsError extends UsageError {
  override name = "ArgumentsError";
  constructor(
    message: string,
    readonly command?: CommandName,
  ) {
    super(message);
  }
}

/** What node:util's parseArgs said, in kneeboard's words. */
function argumentsProblem(name: CommandName, error: NodeJS.ErrnoException): string {
  const named = /'(-[^' ]+)/.exec(error.message)?.[1];
  const known = Object.keys(spec(name).options)
    .map((option) => `--${option}`)
    .join(", ");
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `${name} has no option ${named}; its options are ${known || "none"} and --help`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const value = named && spec(name).options[named.replace(/^--/, "")]?.value;
      return `${named} needs a value${value ? ` (${value})` : ""}`;
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `${name} takes no argument ${/'([^']*)'/.exec(error.message)?.[1] ?? ""}; its options are ${known || "none"}`;
    default:
      return error.message;
  }
}

/**
 * The options of `kneeboard NAME ARGS`, defaults filled in, or `"help"` when they ask for it.
 * Throws an ArgumentsError on an unknown option, a missing value or a missing required option.
 */
export function parseCommand(
  name: CommandName,
  args: string[],
): "help" | Record<string, string | boolean | string[] | undefined> {
  const options = Object.fromEntries(
    Object.entries(spec(name).options).map(([option, o]) => [
      option,
      o.value === undefined
        ? { type: "boolean" as const }
        : { type: "string" as const, multiple: o.multiple ?? false, ...(o.default ? { default: o.default } : {}) },
    ]),
  );
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: { ...options, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    if (!(error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS")) throw error;
    // `--help` anywhere asks for help, even beside an option the parser refuses.
    if (args.includes("--help") || args.includes("-h")) return "help";
    throw new ArgumentsError(argumentsProblem(name, error as NodeJS.ErrnoException), name);
  }
  if (values.help) return "help";
  for (const [option, o] of Object.entries(spec(name).options))
    if (o.required && values[option] === undefined)
      throw new ArgumentsError(`${name} needs ${optionText(option, o)}`, name);
  const { help: _, ...rest } = values;
  return rest;
}
