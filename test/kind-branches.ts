/**
 * @module The kind-branch check of the architecture test, over the TypeScript AST: outside the kinds'
 * modules and their registries (`KIND_OWNERS`), no code asks which kind a load is
 * (docs/architecture.md#load-kinds). Four rules, each a shape of the syntax tree, not a line's text:
 *
 * - `compares-kind`: a comparison (`===`, `!==`, `==`, `!=`) of anything but an alert's `state` with
 *   a kind's or an arrival mode's name (`"closed"`, `"open"`, `"trace"`, `"conversation"`,
 *   `"poisson"`, `"gamma"`), or of an `axis` with an axis's name (`"concurrency"`, `"rate"`,
 *   `"speedup"`); `"trace" in x` too.
 * - `cases-on-kind`: a `case` of a switch on such a name.
 * - `tests-kind-figures`: a property named after a kind (`l.conversation`, `doc.trace`) tested for
 *   presence: as a condition (`?:`, `if`, `while`), under `!`, `&&`, `||`, `??`, `Boolean(...)`,
 *   before `?.`, or against `null`/`undefined`, itself or a name bound to it (`const talk =
 *   level.conversation; if (!talk)`). Reading such a property is fine; asking whether it is there
 *   is asking which kind the level is. A class's own field (`this.open`, an open alert) is
 *   no level's.
 * - `open-loop-name`: a name that says open or closed loop (`openLoop`, `isOpenLoopRun`,
 *   `OpenLoopInput`): a flag, an input or a type of one kind, kept outside it. A constant's name in
 *   capitals (`MIN_OPEN_LOOP_REQUESTS`) names the limit of a rule, not a flag, and is left to it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/**
 * The folders that own kinds, and may branch on them: each kind's module and the registry beside
 * them, in core (`packages/core/src/kinds/`, the registry `index.ts`) and on the site
 * (`site/src/kinds/`, the registry `index.ts`).
 */
export const KIND_OWNERS = ["packages/core/src/kinds/", "site/src/kinds/"] as const;

/** Where the check reads non-test source: every package, the AWS handlers and the site. */
export const CHECKED_DIRS = ["packages", "functions/src", "site/src"] as const;

const KIND_NAMES = new Set(["closed", "open", "trace", "conversation"]);
const MODE_NAMES = new Set(["poisson", "gamma"]);
const AXIS_NAMES = new Set(["concurrency", "rate", "speedup"]);
/** Fields compared with `"open"` that are no kind: an alert's state. */
const NOT_KIND_FIELDS = new Set(["state"]);
const LOOP_NAME = /(open|closed)_?loop/i;
const CONSTANT_NAME = /^[A-Z0-9_]+$/;

const TEST_FILE = /\.test\.ts$/;

/** The name an expression ends in: `kind` of `l.load.kind`, `axis` of `axis`, `mode` of `a["mode"]`. */
function endName(node: ts.Expression): string | null {
  const e = skipOuter(node);
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression)) return e.argumentExpression.text;
  return null;
}

/** An expression without its parentheses, `!` assertions, `as` and `satisfies`. */
function skipOuter(node: ts.Expression): ts.Expression {
  let e = node;
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isSatisfiesExpression(e)
  )
    e = e.expression;
  return e;
}

/** The literal's text when the expression is a string literal. */
function literal(node: ts.Expression): string | null {
  const e = skipOuter(node);
  return ts.isStringLiteralLike(e) ? e.text : null;
}

const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);
const LOGICAL = new Set([
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
]);

/** True when the comparison of `other` with the name `word` asks for a kind (or, for an `axis`, a kind's axis). */
function comparesKind(word: string, other: ts.Expression): boolean {
  const name = endName(other);
  if (AXIS_NAMES.has(word)) return name !== null && /axis$/i.test(name);
  return (KIND_NAMES.has(word) || MODE_NAMES.has(word)) && !(name !== null && NOT_KIND_FIELDS.has(name));
}

/** True when a kind-named property sits where its presence is tested. */
function presenceTested(node: ts.Expression): boolean {
  let child: ts.Node = node;
  let parent = node.parent;
  // Parentheses and assertions around it test it as much as it.
  while (
    parent &&
    (ts.isParenthesizedExpression(parent) || ts.isNonNullExpression(parent) || ts.isAsExpression(parent))
  ) {
    child = parent;
    parent = parent.parent;
  }
  if (!parent) return false;
  if (ts.isConditionalExpression(parent)) return parent.condition === child;
  if (ts.isIfStatement(parent) || ts.isWhileStatement(parent) || ts.isDoStatement(parent))
    return parent.expression === child;
  if (ts.isForStatement(parent)) return parent.condition === child;
  if (ts.isPrefixUnaryExpression(parent)) return parent.operator === ts.SyntaxKind.ExclamationToken;
  if (ts.isBinaryExpression(parent)) {
    const op = parent.operatorToken.kind;
    if (LOGICAL.has(op)) return op !== ts.SyntaxKind.QuestionQuestionToken || parent.left === child;
    if (COMPARISONS.has(op)) {
      const other = parent.left === child ? parent.right : parent.left;
      const o = skipOuter(other);
      return o.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(o) && o.text === "undefined");
    }
    return false;
  }
  if (ts.isCallExpression(parent))
    return ts.isIdentifier(parent.expression) && parent.expression.text === "Boolean" && parent.arguments[0] === child;
  // `l.trace?.share`: the chain asks first whether the kind's figures are there.
  if (
    (ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) &&
    parent.expression === child &&
    parent.questionDotToken !== undefined
  )
    return true;
  return false;
}

/** The kind branches in one file's source, each `file:line: rule: text`. */
export function kindBranchesIn(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const report = (node: ts.Node, rule: string) => {
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    found.push(`${file}:${line + 1}: ${rule}: ${node.getText(sf).replace(/\s+/g, " ").slice(0, 100)}`);
  };
  // Names bound to a kind's figures (`const talk = level.conversation`): testing one tests the figures.
  const aliases = new Set<string>();
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const init = skipOuter(node.initializer);
      if (ts.isPropertyAccessExpression(init) && KIND_NAMES.has(init.name.text)) aliases.add(node.name.text);
    }
    ts.forEachChild(node, collect);
  };
  collect(sf);
  const visit = (node: ts.Node): void => {
    if (
      ts.isIdentifier(node) &&
      aliases.has(node.text) &&
      !ts.isVariableDeclaration(node.parent) &&
      presenceTested(node)
    )
      report(node, "tests-kind-figures");
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (COMPARISONS.has(op)) {
        const l = literal(node.left);
        const r = literal(node.right);
        if ((l !== null && comparesKind(l, node.right)) || (r !== null && comparesKind(r, node.left)))
          report(node, "compares-kind");
      }
      if (op === ts.SyntaxKind.InKeyword) {
        const l = literal(node.left);
        if (l !== null && (KIND_NAMES.has(l) || MODE_NAMES.has(l))) report(node, "compares-kind");
      }
    }
    if (ts.isCaseClause(node)) {
      const word = literal(node.expression);
      if (word !== null && (KIND_NAMES.has(word) || MODE_NAMES.has(word) || AXIS_NAMES.has(word)))
        report(node.expression, "cases-on-kind");
    }
    if (
      ((ts.isPropertyAccessExpression(node) && KIND_NAMES.has(node.name.text)) ||
        (ts.isElementAccessExpression(node) && KIND_NAMES.has(literal(node.argumentExpression) ?? ""))) &&
      node.expression.kind !== ts.SyntaxKind.ThisKeyword &&
      presenceTested(node)
    )
      report(node, "tests-kind-figures");
    if (ts.isIdentifier(node) && LOOP_NAME.test(node.text) && !CONSTANT_NAME.test(node.text))
      report(node, "open-loop-name");
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Non-test TypeScript files under dir (and the script of each `.astro` file), relative to root. */
function sourceFiles(root: string, dir: string): string[] {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ["node_modules", "dist", ".astro"].includes(entry.name) ? [] : sourceFiles(root, path);
    return /\.(ts|astro)$/.test(entry.name) && !TEST_FILE.test(entry.name) && !entry.name.endsWith(".d.ts")
      ? [path]
      : [];
  });
}

/** The code of a file the check reads: an Astro file's frontmatter, a TypeScript file whole. */
function codeOf(root: string, file: string): string {
  const text = readFileSync(join(root, file), "utf8");
  return file.endsWith(".astro") ? (text.split(/^---$/m)[1] ?? "") : text;
}

/** The files the check reads under root: non-test source outside the kinds' owners. */
export function checkedFiles(root: string): string[] {
  return CHECKED_DIRS.flatMap((dir) => sourceFiles(root, dir)).filter(
    (file) => !KIND_OWNERS.some((owner) => file.startsWith(owner)),
  );
}

/** Every kind branch under root, outside the kinds' owners. */
export function kindBranches(root: string): string[] {
  return checkedFiles(root).flatMap((file) => kindBranchesIn(file, codeOf(root, file)));
}
