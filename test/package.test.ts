/**
 * @module The installable CLI: `npm run build -w packages/cli`'s package packed, installed into an
 * empty folder with no registry (every dependency is bundled), and used there as a newcomer would:
 * `--version`, `plan`, and a one-level `run` against `kneeboard serve-reference`, all from the
 * installed bin. Slow (a build and an install) but not timed, so it runs in the parallel group.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const ROOT = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "kneeboard-package-"));
const app = join(dir, "app");
const BIN = join(app, "node_modules", ".bin", "kneeboard");

/** The environment without what `npm test` sets for its scripts (`npm_config_*`), so npm sees an empty folder. */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));

/** The installed `kneeboard` with args: its exit code, stdout and stderr. */
async function installed(args: string[]) {
  try {
    const { stdout, stderr } = await exec(BIN, args, { cwd: app, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let server: ChildProcess | undefined;
let baseURL: string;
/** The tarball `npm pack` made of the build, as npm named it. */
let tarball: string;

beforeAll(async () => {
  // Prepare: build into a folder of this test's own (the repository's dist is left alone), pack, install.
  const built = join(dir, "kneeboard");
  await exec(join(ROOT, "node_modules", ".bin", "tsx"), [join(ROOT, "packages/cli/scripts/build.ts"), "--out", built], {
    env,
  });
  const { stdout } = await exec("npm", ["pack", built, "--json", "--pack-destination", dir], { cwd: dir, env });
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  tarball = packed?.filename ?? "";
  mkdirSync(app);
  await exec("npm", ["install", "--offline", "--no-audit", "--no-fund", join(dir, tarball)], {
    cwd: app,
    env,
  });

  // The reference targets from the installed command, on a port the system picks.
  const child = spawn(BIN, ["serve-reference", "--port", "0"], { cwd: app, env, stdio: ["ignore", "pipe", "inherit"] });
  server = child;
  baseURL = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (chunk) => {
      text += String(chunk);
      const url = /at (http:\/\/\S+)/.exec(text)?.[1];
      if (url) resolve(url);
    });
    child.on("exit", (code) => reject(new Error(`serve-reference exited ${code}: ${text}`)));
  });
}, 240_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("the kneeboard package", () => {
  // What the README promises of the package (its section "The installable package", and "License"),
  // as npm and the installed folder show it, not as the build script wrote its manifest.
  it("packs as kneeboard-<version>.tgz, answers `npx kneeboard` offline, installs nothing besides itself, under Apache-2.0", async () => {
    const version = JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")).version;
    expect(tarball).toBe(`kneeboard-${version}.tgz`);
    const { stdout } = await exec("npx", ["--offline", "kneeboard", "--version"], { cwd: app, env });
    expect(stdout).toBe(`${version}\n`);
    // What npm recorded it installed: the one package, by that name, and nothing under it.
    const { stdout: listed } = await exec("npm", ["ls", "--all", "--json"], { cwd: app, env });
    expect(JSON.parse(listed).dependencies).toEqual({
      kneeboard: expect.objectContaining({ version, resolved: expect.stringContaining(tarball) }),
    });
    expect(JSON.parse(listed).dependencies.kneeboard.dependencies).toBeUndefined();
    expect(readdirSync(join(app, "node_modules")).filter((name) => !name.startsWith("."))).toEqual(["kneeboard"]);
    // The licence the README names, as the installed package declares it, and its text.
    const licence = /^(\S+): see \[LICENSE\]\(LICENSE\)\.$/m.exec(readFileSync(join(ROOT, "README.md"), "utf8"))?.[1];
    expect(licence).toBe("Apache-2.0");
    const { stdout: declared } = await exec("npm", ["pkg", "get", "license"], {
      cwd: join(app, "node_modules", "kneeboard"),
      env,
    });
    expect(JSON.parse(declared)).toBe(licence);
    expect(readFileSync(join(app, "node_modules", "kneeboard", "LICENSE"), "utf8")).toBe(
      readFileSync(join(ROOT, "LICENSE"), "utf8"),
    );
  });

  it("ships the docs its README links, with no link leading out of the package, and the config schema its $schema names", () => {
    const pkg = join(app, "node_modules", "kneeboard");
    const readme = readFileSync(join(pkg, "README.md"), "utf8");
    /** The relative links of a shipped markdown file, as paths in the package (anchors dropped). */
    const links = (file: string) =>
      [...readFileSync(join(pkg, file), "utf8").matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)]
        .map((m) => m[1] as string)
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => join(dirname(file), target));
    const linked = links("README.md");
    expect(linked).toEqual(expect.arrayContaining(["docs/config.md", "docs/methodology.md", "docs/run-document.md"]));
    for (const file of linked.filter((f) => f.endsWith(".md")))
      for (const target of [file, ...links(file)])
        expect(existsSync(join(pkg, target)), `${file} → ${target}`).toBe(true);
    // The $schema the README gives, from the folder installed into, is the repository's config schema.
    const schema = /"\$schema": "([^"]+)"/.exec(readme)?.[1] ?? "";
    expect(readFileSync(join(app, schema), "utf8")).toBe(
      readFileSync(join(ROOT, "schemas/config.schema.json"), "utf8"),
    );
  });

  it("answers --version with the CLI's version", async () => {
    const version = JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")).version;
    expect(await installed(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("plans and runs one level against serve-reference, storing the run", async () => {
    const config = join(app, "kneeboard.json");
    writeFileSync(
      config,
      JSON.stringify({
        // As the package's README gives it.
        $schema: "./node_modules/kneeboard/schemas/config.schema.json",
        targets: [
          { id: "ref", label: "reference (simulated)", baseURL, model: "ref-large-slow", route: { gateway: "direct" } },
        ],
        // Streams of about 0.6 s, so a busy machine's client delay stays within 3 % of them.
        workload: {
          concurrency: [1],
          maxTokens: 128,
          promptTokens: 20,
          requestsPerLevel: 2,
          warmupRequests: 0,
          canary: false,
        },
      }),
    );

    const plan = await installed(["plan", "--config", config]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("kneeboard.json is valid");

    const run = await installed(["run", "--config", config, "--data", join(app, "data")]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("aggregate tok/s");
    const runs = readdirSync(join(app, "data", "runs", "ref"));
    expect(runs).toHaveLength(1);
    const doc = JSON.parse(readFileSync(join(app, "data", "runs", "ref", runs[0] as string), "utf8"));
    expect(doc.levels.map((l: { requests: { ok: number } }) => l.requests.ok)).toEqual([2]);
  });

  it.each(["site", "preview", "demo", "deploy", "sweep-now"])(
    "says in one sentence that %s is left out, exit 2, and answers its --help",
    async (command) => {
      const result = await installed([command]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^kneeboard \S+ needs .*, which the installed package leaves out: .*\.\n$/);
      const help = await installed([command, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`kneeboard ${command}`);
    },
  );
});
