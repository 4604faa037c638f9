/**
 * @module The methodology page's text: `docs/methodology.md` of the repository, the one source the
 * docs and the site share, rendered to HTML at build time.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";

/** The markdown file the methodology page renders. */
export const METHODOLOGY_FILE = fileURLToPath(new URL("../../../docs/methodology.md", import.meta.url));

/**
 * HTML of a markdown text (GitHub's flavour: tables, autolinks). Raw HTML in the text is escaped,
 * so the page shows exactly what the docs say and loads nothing from another origin.
 */
export function markdownHtml(markdown: string): string {
  return micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}

/**
 * The methodology page's HTML; fails the build when the file is missing rather than publish an empty page.
 * Each table gets its own keyboard-focusable scroll box (as ScrollTable gives the other pages), so a
 * wide table never scrolls the page sideways on a phone. Raw HTML in the text is escaped, so every
 * `<table>` here is one the markdown made.
 */
export async function methodologyHtml(file = METHODOLOGY_FILE): Promise<string> {
  return markdownHtml(await readFile(file, "utf8"))
    .replaceAll(
      "<table>",
      '<div class="table-scroll" role="region" tabindex="0" aria-label="A table of the methodology"><table>',
    )
    .replaceAll("</table>", "</table></div>");
}
