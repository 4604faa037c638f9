/**
 * @module zod's issues in kneeboard's words: each problem of a config at its path in the file
 * (`targets[1].route.provider`), saying what the value must be, never zod's own text.
 */
import type { z } from "zod";
import type { ConfigProblem } from "../errors/index.ts";

/** What a value of a zod type is, as a sentence says it. */
const KINDS: Record<string, string> = {
  int: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  record: "an object",
  null: "null",
};

const kind = (expected: string) => KINDS[expected] ?? expected;

/** A value as a message quotes it: short, and always one line. */
function quote(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

const entries = (n: number | bigint) => `${n} ${n === 1 ? "entry" : "entries"}`;

/** A bound's sentence: `at most 2`, `at most 64 characters`, `at least 1 entry`. */
function bound(issue: { origin: string; inclusive?: boolean }, limit: number | bigint, side: "most" | "least") {
  switch (issue.origin) {
    case "array":
    case "set":
      return `must have at ${side} ${entries(limit)}`;
    case "string":
      return side === "least" && limit === 1
        ? "must not be empty"
        : `must be at ${side} ${limit} character${limit === 1 ? "" : "s"}`;
    default:
      if (issue.inclusive !== false) return `must be at ${side} ${limit}`;
      if (side === "least" && Number(limit) === 0) return "must be a positive number";
      return `must be ${side === "most" ? "less" : "more"} than ${limit}`;
  }
}

/**
 * The message of an issue whose schema gave none of its own, in the project's words; pass it as the
 * `error` of `safeParse` (a schema's own message still wins).
 */
export function issueMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return `is required (${kind(issue.expected)})`;
      return `must be ${kind(issue.expected)}, not ${quote(issue.input)}`;
    case "too_big":
      return bound(issue, issue.maximum, "most");
    case "too_small":
      return bound(issue, issue.minimum, "least");
    case "invalid_format":
      if (issue.format === "url") return "must be an http:// or https:// URL";
      if (issue.format === "regex" && "pattern" in issue) return `must match ${String(issue.pattern)}`;
      return `must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${quote(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => (typeof v === "string" ? v : quote(v))).join(", ")}`;
    case "unrecognized_keys":
      return `unknown key${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
    case "invalid_union": {
      // The kinds the branches wanted, where the value is none of them: "a number or a list".
      const wanted = issue.errors.map((branch) => {
        const [only] = branch;
        return branch.length === 1 && only?.code === "invalid_type" && only.path.length === 0
          ? kind(only.expected)
          : null;
      });
      if (wanted.length > 0 && wanted.every((w) => w !== null)) return `must be ${[...new Set(wanted)].join(" or ")}`;
      return "matches none of the forms it may take";
    }
    case "invalid_key":
      return "is not a valid key";
    case "invalid_element":
      return "holds an invalid entry";
    default:
      return "is invalid";
  }
}

/** `targets[1].route.provider` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>(
      (out, part) => (typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)),
      "",
    ) || "(root)"
  );
}

/**
 * One problem per zod issue; an unknown key is named in the path, so typos point at themselves. A
 * union whose value has the kind of exactly one of its branches reports that branch's problems, at
 * their own paths: `speedup[1]` is not ascending, rather than `speedup` matching no branch.
 */
export function problemsOf(issue: z.core.$ZodIssue, at: readonly PropertyKey[] = []): ConfigProblem[] {
  const path = [...at, ...issue.path];
  if (issue.code === "unrecognized_keys")
    return issue.keys.map((key) => ({
      path: formatPath([...path, key]),
      message: `unknown key ${JSON.stringify(key)}`,
    }));
  // A record key (a scenario name) that breaks its rule: the key's own messages, at the key.
  if (issue.code === "invalid_key")
    return [{ path: formatPath(path), message: issue.issues.map((inner) => inner.message).join("; ") }];
  if (issue.code === "invalid_union") {
    const kindMatched = issue.errors.filter(
      (branch) => !branch.some((inner) => inner.code === "invalid_type" && inner.path.length === 0),
    );
    const [only] = kindMatched;
    if (kindMatched.length === 1 && only && only.length > 0) return only.flatMap((inner) => problemsOf(inner, path));
  }
  return [{ path: formatPath(path), message: issue.message }];
}
