/** @module The docs stay in step with the code: every config field is documented, and nothing points outside the repository. */
import { readdirSync, readFileSync } from "node:fs";
import { configJsonSchema } from "@kneeboard/core/config";
import { markdownHtml, methodologyHtml } from "@kneeboard/site/lib/methodology.ts";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), "utf8");

type Schema = {
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
  $defs?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
};

/** Every property path of a JSON Schema, as `targets[].route.provider`; `$ref`s into its definitions followed. */
function propertyPaths(root: Schema): string[] {
  const paths = new Set<string>();
  const resolve = (ref: string): Schema | undefined => {
    const [, where, name] = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref) ?? [];
    return where && name ? (root as Record<string, Record<string, Schema>>)[where]?.[name] : undefined;
  };
  const walk = (node: Schema | undefined, at: string, seen: Set<string>) => {
    if (!node) return;
    if (node.$ref) {
      if (seen.has(node.$ref)) return;
      walk(resolve(node.$ref), at, new Set([...seen, node.$ref]));
    }
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const path = at ? `${at}.${key}` : key;
      paths.add(path);
      walk(child, path, seen);
    }
    if (node.items) walk(node.items, `${at}[]`, seen);
    for (const child of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) walk(child, at, seen);
  };
  walk(root, "", new Set());
  return [...paths];
}

describe("docs/config.md", () => {
  const doc = read("docs/config.md");
  const paths = propertyPaths(configJsonSchema() as Schema);

  it("finds the schema's fields (the walk itself works)", () => {
    expect(paths).toContain("targets[].route.provider");
    expect(paths).toContain("targets[].workload.maxTokens");
    expect(paths).toContain("workload.concurrency");
  });

  // A target's workload has the global workload's fields, documented once under `workload.`.
  it.each([...new Set(paths.map((p) => p.replace(/^targets\[\]\.workload\./, "workload.")))])(
    "documents `%s`",
    (path) => {
      expect(doc).toContain(`\`${path}\``);
    },
  );
});

describe("the README and docs", () => {
  const files = ["README.md", ...readdirSync(new URL("docs/", ROOT)).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith(".md"),
  );
  // Spelled in parts, so that a grep of the repository for the outside folder finds nothing, this test included.
  const outside = ["..", "shared"].join("/");
  it.each(files)("%s points only inside the repository", (file) => {
    const text = read(file);
    expect(text).not.toContain(outside);
    expect(text).not.toMatch(/SPEC(\.md)? section/);
  });
});

describe("docs/methodology.md is the site's methodology page", () => {
  const markdown = read("docs/methodology.md");

  it("renders every heading of the docs, and the page has no text of its own", async () => {
    const html = await methodologyHtml();
    const headings = [...markdown.matchAll(/^#{1,3} (.+)$/gm)].map((m) => m[1] as string);
    expect(headings.length).toBeGreaterThan(5);
    for (const heading of headings) expect(html).toContain(`>${heading}</h`);
    const page = read("site/src/pages/methodology.astro");
    expect(page).toContain("methodologyHtml");
    expect(page).not.toMatch(/<(h2|p|li|dt)\b/);
  });

  it("escapes raw HTML and makes no request to another origin", () => {
    expect(markdownHtml('<script src="https://example.com/x.js"></script>\n\n| a |\n|---|\n| 1 |')).not.toContain(
      "<script",
    );
    expect(markdownHtml("| a |\n|---|\n| 1 |")).toContain("<table>");
    expect(markdown).not.toMatch(/!\[[^\]]*\]\(https?:/);
  });
});
