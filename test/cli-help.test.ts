/**
 * @module `kneeboard help`, `--help`, `-h` and `--version`: every command answers with what it does,
 * its options with their defaults and its exit codes (exit 0), from the one table the parser reads; a
 * command line that does not parse is named in one sentence and the command's usage (exit 2). In this
 * process (project `parallel`).
 */
import { COMMANDS, optionText, synopsis } from "@kneeboard/cli/commands";
import cliPackage from "@kneeboard/cli/package.json" with { type: "json" };
import { describe, expect, it } from "vitest";
import { kneeboardHere } from "./cli-harness.ts";

const NAMES = Object.keys(COMMANDS) as (keyof typeof COMMANDS)[];

describe("kneeboard help", () => {
  it.each(NAMES)("%s: --help, -h and `help %s` exit 0 with its options, defaults and exit codes", async (name) => {
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
    const spec = COMMANDS[name];
    expect(out).toContain(`kneeboard ${name}: ${spec.summary}.`);
    expect(out).toContain(`usage: ${synopsis(name)}`);
    for (const [option, o] of Object.entries(spec.options)) {
      expect(out).toContain(optionText(option, o));
      const fallback = "default" in o ? o.default : "defaultText" in o ? o.defaultText : undefined;
      if (fallback) expect(out).toContain(`default ${fallback}`);
    }
    expect(out).toContain("exit codes:");
    for (const [code, when] of Object.entries(spec.exitCodes))
      expect(out).toMatch(new RegExp(`\\n  ${code} +${literally(when)}`));
  });

  it("help, --help and -h list every command with its synopsis and what it does, exit 0", async () => {
    for (const args of [["help"], ["--help"], ["-h"]]) {
      const { code, out } = await kneeboardHere(args);
      expect(code).toBe(0);
      for (const name of NAMES) {
        expect(out).toContain(`  ${synopsis(name).slice("kneeboard ".length)}\n`);
        expect(out).toContain(COMMANDS[name].summary);
      }
    }
  });

  it("--help wins over an option the parser refuses", async () => {
    const { code, out } = await kneeboardHere(["run", "--bogus", "--help"]);
    expect(code).toBe(0);
    expect(out).toContain("usage: kneeboard run");
  });

  it("version, --version, -V and -v print the CLI package's version, as the usage says", async () => {
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
    expect(out).toBe(
      `${sentence}\nusage: ${synopsis(name as keyof typeof COMMANDS)}\n(kneeboard help ${name} says more)\n`,
    );
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
    expect(out.split("\n")[0]).toBe(
      `unknown command ${typo} (did you mean ${meant}?); the commands are ${NAMES.join(", ")}`,
    );
  });

  it("an unknown command names the commands, exit 2", async () => {
    for (const args of [["nope"], ["help", "nope"]]) {
      const { code, out } = await kneeboardHere(args);
      expect(code).toBe(2);
      expect(out.split("\n")[0]).toBe(`unknown command nope; the commands are ${NAMES.join(", ")}`);
    }
  });
});

/** `text` as a regular expression matching it literally. */
function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
