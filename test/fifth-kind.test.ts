/**
 * @module A fifth load kind (test/fixtures/fifth-kind: its core module and its site view) added the
 * way docs/architecture.md#load-kinds says, type-checked with the TypeScript compiler over the real
 * tree with those files laid over it: with its module and its members of core's unions only, `tsc`
 * names each registry entry it lacks; with the registries' lines too, the tree compiles, so no other
 * file needs to know of it.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..");
const FIXTURE = join(ROOT, "test", "fixtures", "fifth-kind");
const CORE_REGISTRY = join(ROOT, "packages/core/src/kinds/index.ts");
const SITE_REGISTRY = join(ROOT, "site/src/kinds/index.ts");
const CORE_KIND = join(ROOT, "packages/core/src/kinds/burst/index.ts");
const SITE_KIND = join(ROOT, "site/src/kinds/burst.ts");

/** `text` with `from` replaced once by `to`; throws when the registry no longer reads so (the test must follow it). */
function patch(text: string, from: string | RegExp, to: string): string {
  const next = text.replace(from, to);
  if (next === text) throw new Error(`registry changed: ${String(from)} not found`);
  return next;
}

/** Core's registry with the kind's members in its `Load`, `LevelLoad` and `Arrival` unions (the kind's own types). */
function coreUnions(): string {
  let text = readFileSync(CORE_REGISTRY, "utf8");
  text = patch(
    text,
    'import { ClosedArrival, ClosedLoad, closed } from "./closed/index.ts";',
    'import { BurstArrival, BurstLoad, burst } from "./burst/index.ts";\nimport { ClosedArrival, ClosedLoad, closed } from "./closed/index.ts";',
  );
  text = patch(
    text,
    /\[ClosedLoad, OpenLoad, TraceLoad, ConversationLoad\]/,
    "[ClosedLoad, OpenLoad, TraceLoad, ConversationLoad, BurstLoad]",
  );
  text = patch(text, /export type LevelLoad = ClosedLoad \|/, "export type LevelLoad = BurstLoad | ClosedLoad |");
  text = patch(
    text,
    /\[ClosedArrival, PoissonArrival, GammaArrival, TraceArrival\]/,
    "[ClosedArrival, PoissonArrival, GammaArrival, TraceArrival, BurstArrival]",
  );
  return text;
}

/** Core's registry with the kind's lines in `KINDS`, `KIND_FIGURES` and `MODE_KIND` as well. */
function coreRegistered(): string {
  let text = coreUnions();
  text = patch(
    text,
    "export const KINDS = { closed, open, trace, conversation }",
    "export const KINDS = { closed, open, trace, conversation, burst }",
  );
  text = patch(text, /(export const KIND_FIGURES = \{\n)/, "$1  burst: nested(burst.figures.schema),\n");
  text = patch(text, /(const MODE_KIND = \{ )/, '$1burst: "burst", ');
  return text;
}

/** The site's registry with the kind's view in `KINDS`. */
function siteRegistered(): string {
  let text = readFileSync(SITE_REGISTRY, "utf8");
  text = patch(
    text,
    'import { closed } from "./closed.ts";',
    'import { burst } from "./burst.ts";\nimport { closed } from "./closed.ts";',
  );
  text = patch(text, /(export const KINDS: Record<KindName, KindView> = \{ )/, "$1burst, ");
  return text;
}

/** The compiler options of the repo's tsconfig.json. */
function options(): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!parsed) throw new Error("tsconfig.json unreadable");
  return parsed.options;
}

let previous: ts.Program | undefined;

/**
 * The syntax trees of the files no overlay touches, shared by both programs: `oldProgram` keeps a
 * file's tree only when the host hands back the very same object, and the default host parses anew.
 */
const parsed = new Map<string, ts.SourceFile>();

/**
 * A program over the tree's non-test source with these files laid over it (each path's text), its
 * roots every package's, the site's and the functions' source besides. Returns it with the paths of
 * the repo's own non-test source files in it.
 */
function program(overlay: Map<string, string>): { program: ts.Program; files: ts.SourceFile[] } {
  const opts = options();
  const host = ts.createCompilerHost(opts);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (path) => overlay.get(path) ?? readFile(path);
  host.fileExists = (path) => overlay.has(path) || fileExists(path);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (path, version, onError) => {
    if (overlay.has(path)) return getSourceFile(path, version, onError);
    const known = parsed.get(path) ?? getSourceFile(path, version, onError);
    if (known) parsed.set(path, known);
    return known;
  };
  // The kind's own folder exists only in the overlay.
  const directoryExists = host.directoryExists?.bind(host) ?? ts.sys.directoryExists;
  host.directoryExists = (path) =>
    [...overlay.keys()].some((file) => file.startsWith(`${path}/`)) || directoryExists(path);
  const roots = [
    ...ts.sys.readDirectory(join(ROOT, "packages"), [".ts"], ["**/node_modules", "**/*.test.ts"], ["*/src/**/*"]),
    ...ts.sys.readDirectory(join(ROOT, "site/src"), [".ts"], ["**/*.test.ts"]),
    ...ts.sys.readDirectory(join(ROOT, "functions/src"), [".ts"], ["**/*.test.ts"]),
    ...overlay.keys(),
  ];
  // The unchanged files' syntax trees are taken from the previous program.
  const p = ts.createProgram({ rootNames: [...new Set(roots)], options: opts, host, oldProgram: previous });
  previous = p;
  const files = p
    .getSourceFiles()
    .filter(
      (f) => f.fileName.startsWith(ROOT) && !f.fileName.includes("/node_modules/") && !f.fileName.endsWith(".test.ts"),
    );
  return { program: p, files };
}

/** An error: its file, the declaration it is in (`?` outside one) and its message, every line. */
interface Found {
  file: string;
  declaration: string;
  message: string;
}

function errors(p: ts.Program, files: readonly ts.SourceFile[]): Found[] {
  return files.flatMap((file) =>
    p.getSemanticDiagnostics(file).map((d) => {
      let node = d.start === undefined ? undefined : findNode(file, d.start);
      while (node && !ts.isVariableDeclaration(node)) node = node.parent;
      return {
        file: file.fileName.slice(ROOT.length + 1),
        declaration: node && ts.isVariableDeclaration(node) ? node.name.getText(file) : "?",
        message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
      };
    }),
  );
}

/** The innermost node at a position. */
function findNode(file: ts.SourceFile, position: number): ts.Node | undefined {
  const visit = (node: ts.Node): ts.Node | undefined =>
    position >= node.getStart(file) && position < node.getEnd() ? (ts.forEachChild(node, visit) ?? node) : undefined;
  return visit(file);
}

/**
 * A file that could need a line for a new kind: it names the kinds' types or registries, or imports a
 * registry (or `run/`, which re-exports core's). Any other file sees a kind only through a
 * registry's functions, and no branch on one outside the kinds' folders (test/architecture.test.ts).
 */
const KNOWS_KINDS =
  /\b(Kind|KindName|KINDS|KIND_FIGURES|KindLevelFigures|FigureParts|LevelLoad|Arrival|Load)\b|kinds\/index\.ts|@kneeboard\/core\/(kinds|run)"|run\/index\.ts"/;

const kindFiles = () =>
  new Map([
    [CORE_KIND, readFileSync(join(FIXTURE, "core.ts.txt"), "utf8")],
    [SITE_KIND, readFileSync(join(FIXTURE, "site.ts.txt"), "utf8")],
  ]);

describe("a fifth load kind", () => {
  it("with its module and its members of core's unions only, tsc names each registry entry it lacks", () => {
    const overlay = kindFiles();
    overlay.set(CORE_REGISTRY, coreUnions());
    const { program: p, files } = program(overlay);
    const registries = files.filter((f) => f.fileName === CORE_REGISTRY || f.fileName === SITE_REGISTRY);
    // Each registry names "burst" as the property it is missing, at its own declaration.
    const missing = errors(p, registries).filter((e) => /Property 'burst' is missing/.test(e.message));
    expect([...new Set(missing.map((e) => `${e.file}: ${e.declaration}`))].sort()).toEqual([
      "packages/core/src/kinds/index.ts: KINDS",
      "packages/core/src/kinds/index.ts: KIND_FIGURES",
      "packages/core/src/kinds/index.ts: MODE_KIND",
      "site/src/kinds/index.ts: KINDS",
    ]);
  }, 240_000);

  it("with the registries' lines too, the whole tree compiles: no other file needs to know of it", () => {
    const overlay = kindFiles();
    overlay.set(CORE_REGISTRY, coreRegistered());
    overlay.set(SITE_REGISTRY, siteRegistered());
    const { program: p, files } = program(overlay);
    // Checked: every file that could know the kinds by name (checking all 250 takes minutes of a busy core).
    const knowing = files.filter((f) => overlay.has(f.fileName) || KNOWS_KINDS.test(f.text));
    expect(errors(p, knowing)).toEqual([]);
    // Not vacuous: the tree was read, the kind and the registries among the files checked.
    expect(files.length).toBeGreaterThan(200);
    expect(knowing.map((f) => f.fileName)).toEqual(
      expect.arrayContaining([CORE_KIND, SITE_KIND, CORE_REGISTRY, SITE_REGISTRY]),
    );
  }, 240_000);
});
