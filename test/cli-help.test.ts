/**
 * @module `kneeboard help`, `--help`, `-h` and `--version`: every command answers with what it does,
 * its options with their defaults and its exit codes (exit 0); a command line that does not parse is
 * named in one sentence and the command's usage (exit 2). The help printed is read back and held to
 * what the README and docs/config.md promise a user, written out here: not to the table it was
 * rendered from. In this process (project `parallel`).
 */
import cliPackage from "@kneeboard/cli/package.json" with { type: "json" };
import { describe, expect, it } from "vitest";
import { kneeboardHere } from "./cli-harness.ts";

/** What a user is promised of each command: its usage, its options' defaults, its exit codes. */
const PROMISED = {
  run: {
    usage: "kneeboard run --config FILE [--data DIR] [--target ID]... [--repeat K]",
    options: { "--config FILE": "required", "--data DIR": "./data", "--target ID": "every target", "--repeat K": "1" },
    exitCodes: ["0", "1", "2", "130"],
  },
  plan: {
    usage: "kneeboard plan --config FILE [--deployed]",
    options: { "--config FILE": "required", "--deployed": null },
    exitCodes: ["0", "1", "2"],
  },
  check: { usage: "kneeboard check [--data DIR]", options: { "--data DIR": "./data" }, exitCodes: ["0", "1", "2"] },
  site: {
    usage: "kneeboard site [--data DIR] [--out DIR] [--config FILE]",
    options: {
      "--data DIR": "./data",
      "--out DIR": "site/dist",
      "--config FILE": "the last 72 hours, at most 24 runs",
    },
    exitCodes: ["0", "1", "2"],
  },
  preview: {
    usage: "kneeboard preview [--out DIR] [--port N]",
    options: { "--out DIR": "site/dist", "--port N": "4321" },
    exitCodes: ["0", "1", "2"],
  },
  demo: {
    usage: "kneeboard demo [--data DIR] [--out DIR]",
    options: { "--data DIR": "./data", "--out DIR": "site/dist" },
    exitCodes: ["0", "1", "2"],
  },
  "serve-reference": {
    usage: "kneeboard serve-reference [--port N]",
    options: { "--port N": "8787" },
    exitCodes: ["0", "1", "2"],
  },
  deploy: {
    usage: "kneeboard deploy --stage NAME [--config FILE]",
    options: { "--stage NAME": "required", "--config FILE": "$KNEEBOARD_CONFIG, else kneeboard.config.json" },
    exitCodes: ["0", "1", "2", "other"],
  },
  "sweep-now": {
    usage: "kneeboard sweep-now [--stage NAME] [--config FILE]",
    options: {
      "--stage NAME": "none needed under `sst shell`",
      "--config FILE": "$KNEEBOARD_CONFIG, else kneeboard.config.json",
    },
    exitCodes: ["0", "1", "2"],
  },
} satisfies Record<string, { usage: string; options: Record<string, string | null>; exitCodes: string[] }>;
type Name = keyof typeof PROMISED;
const NAMES = Object.keys(PROMISED) as Name[];
/** The commands as the usage lists them, in its order (the README's). */
const LISTED = "run, plan, check, site, preview, demo, serve-reference, deploy, sweep-now";

/** The lines of a help's `heading:` section, up to the next blank line, without their indent. */
function section(help: string, heading: string): string[] {
  const lines = help.split("\n");
  const start = lines.indexOf(`${heading}:`);
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && line === "");
  return lines.slice(start + 1, end < 0 ? undefined : end).map((line) => line.trim());
}

/** A help's options as printed, each with its default (`required`, or null for a switch with none). */
function printedOptions(help: string): Record<string, string | null> {
  return Object.fromEntries(
    section(help, "options")
      .filter((line) => !line.startsWith("-h, --help"))
      .map((line) => {
        const [option = "", about = ""] = line.split(/ {2,}/);
        const fallback = /; default (.+)$/.exec(about)?.[1] ?? (about.endsWith("; required") ? "required" : null);
        return [option, fallback];
      }),
  );
}

describe("kneeboard help", () => {
  it.each(NAMES)(
    "%s: --help, -h and `help` with it exit 0 with its usage, options, defaults and exit codes",
    async (name) => {
      const answers = await Promise.all([
        kneeboardHere([name, "--help"]),
        kneeboardHere([name, "-h"]),
        kneeboardHere(["help", name]),
      ]);
      for (const { code, out } of answers) {
        expect(code).toBe(0);
        expect(out).toBe(answers[0]?.out);
      }
      const out = answers[0]?.out ?? "";
      const promised = PROMISED[name];
      expect(out).toMatch(new RegExp(`^kneeboard ${name}: \\S.*\\.\n`));
      expect(section(out, "options").at(-1)).toMatch(/^-h, --help +print this help$/);
      expect(out).toContain(`\nusage: ${promised.usage}\n`);
      expect(printedOptions(out)).toEqual(promised.options);
      expect(section(out, "exit codes").map((line) => line.split(" ")[0])).toEqual(promised.exitCodes);
      // Each exit code says when, in words.
      for (const line of section(out, "exit codes")) expect(line).toMatch(/^\S+ +\S+/);
    },
  );

  it("help, --help and -h list every command with its synopsis and what it does, exit 0", async () => {
    for (const args of [["help"], ["--help"], ["-h"]]) {
      const { code, out } = await kneeboardHere(args);
      expect(code).toBe(0);
      expect(out.split("\n")[0]).toBe("usage: kneeboard <command> [options]");
      const synopses = out.split("\n").filter((line) => /^ {2}\S/.test(line));
      expect(synopses).toEqual(NAMES.map((name) => `  ${PROMISED[name].usage.slice("kneeboard ".length)}`));
      // Under each synopsis, what the command does.
      for (const synopsis of synopses) {
        const next = out.split("\n")[out.split("\n").indexOf(synopsis) + 1] ?? "";
        expect(next).toMatch(/^ {6}\S.{10,}/);
      }
    }
  });

  it("--help wins over an option the parser refuses", async () => {
    const { code, out } = await kneeboardHere(["run", "--bogus", "--help"]);
    expect(code).toBe(0);
    expect(out).toContain("usage: kneeboard run");
  });

  it("version, --version, -V and -v print the CLI package's version, as the usage says", async () => {
    expect(cliPackage.version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ["version", "--version", "-V", "-v"])
      expect(await kneeboardHere([flag])).toEqual({ code: 0, out: `${cliPackage.version}\n` });
    expect((await kneeboardHere(["help"])).out).toContain(
      "`kneeboard version` (or `--version`, `-V`) prints the version.",
    );
  });
});

describe("a command line that does not parse", () => {
  it.each([
    [
      ["run", "--bogus"],
      "run has no option --bogus; its options are --config, --data, --target, --repeat and --help",
      "run",
    ],
    [["run"], "run needs --config FILE", "run"],
    [["plan", "--config"], "--config needs a value (FILE)", "plan"],
    [["check", "stray"], "check takes no argument stray; its options are --data", "check"],
    [["deploy"], "deploy needs --stage NAME", "deploy"],
    [["serve-reference", "--port", "x"], "--port must be a port number, not x", "serve-reference"],
  ])("%j: exit 2, one sentence in kneeboard's words, then the command's usage", async (args, sentence, name) => {
    const { code, out } = await kneeboardHere(args);
    expect(code).toBe(2);
    expect(out).toBe(`${sentence}\nusage: ${PROMISED[name as Name].usage}\n(kneeboard help ${name} says more)\n`);
  });

  it.each([
    ["plna", "plan"],
    ["rnu", "run"],
    ["chek", "check"],
    ["deplyo", "deploy"],
    ["sweepnow", "sweep-now"],
    ["verison", "version"],
  ])("%s: exit 2, did you mean %s?", async (typo, meant) => {
    const { code, out } = await kneeboardHere([typo]);
    expect(code).toBe(2);
    expect(out.split("\n")[0]).toBe(`unknown command ${typo} (did you mean ${meant}?); the commands are ${LISTED}`);
  });

  it("an unknown command names the commands, exit 2", async () => {
    for (const args of [["nope"], ["help", "nope"]]) {
      const { code, out } = await kneeboardHere(args);
      expect(code).toBe(2);
      expect(out.split("\n")[0]).toBe(`unknown command nope; the commands are ${LISTED}`);
    }
  });
});
