/**
 * Every load kind of the registry on every page that lists levels, read from the built HTML of the
 * shared fixture site (no browser): for each kind a fixture target of it, and its section on the
 * leaderboard, its target page, its model page, its compare page, and its leaderboard at N where its
 * levels are an N. A kind added to the registry fails here until the fixture has a target of it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { KIND_NAMES, KINDS, type KindName } from "../src/kinds/index.ts";
import { CONVERSATION, FIXTURE_TARGETS, OPEN_LOOP, SHARED_MODEL_KEY, TRACE } from "./fixture.ts";
import { sharedSite } from "./shared-site.ts";

/** The fixture's target of each kind: its id, the scenario it runs, and its model key. */
const OF_KIND: Record<KindName, { id: string; scenario: string; modelKey: string }> = {
  closed: { id: FIXTURE_TARGETS[0].id, scenario: "chat", modelKey: SHARED_MODEL_KEY },
  open: { id: OPEN_LOOP.id, scenario: OPEN_LOOP.scenario, modelKey: OPEN_LOOP.id },
  trace: { id: TRACE.id, scenario: TRACE.scenario, modelKey: "trace-model-8b" },
  conversation: { id: CONVERSATION.id, scenario: CONVERSATION.scenario, modelKey: "conversation-model-8b" },
};

let outDir: string;
const html = (path: string) => readFileSync(join(outDir, path, "index.html"), "utf8");
/** A scenario's pages: the site's first (`chat`) at the root, each other under `s/<scenario>/`. */
const under = (scenario: string) => (scenario === "chat" ? "" : `s/${scenario}/`);
/** The part of a page from the element marked `data-kind="<kind>"` on. */
function fromKind(page: string, kind: KindName): string {
  const at = page.indexOf(`data-kind="${kind}"`);
  if (at < 0) throw new Error(`no element with data-kind="${kind}"`);
  return page.slice(at);
}

beforeAll(async () => {
  ({ outDir } = await sharedSite(inject("sharedSiteDir")));
}, 300_000);

describe.each(KIND_NAMES)("the %s kind", (kind) => {
  const view = KINDS[kind];
  const target = OF_KIND[kind];

  it("ranks its fixture target on its scenario's leaderboard", () => {
    const board = fromKind(html(under(target.scenario)), kind);
    expect(board).toMatch(new RegExp(`<tr data-target="${target.id}"`));
  });

  it("shows its sections, figures and tables, on its target's page", () => {
    const page = fromKind(html(`targets/${target.id}/`), kind);
    for (const s of view.target) if (s.heading) expect(page).toContain(`<h2>${s.heading}</h2>`);
    for (const f of view.target.flatMap((s) => s.figures)) expect(page).toContain(`id="${f.id}"`);
  });

  it("shows its routes and its sections on its model's page", () => {
    const page = fromKind(html(`models/${target.modelKey}/`), kind);
    expect(page).toContain(`<h2>${view.model.heading}</h2>`);
    expect(page).toMatch(new RegExp(`<tr data-target="${target.id}"`));
    for (const f of view.model.sections.flatMap((s) => s.figures)) expect(page).toContain(`id="${f.id}"`);
  });

  it("is compared on its scenario's compare page", () => {
    const page = fromKind(html(`${under(target.scenario)}compare/`), kind);
    expect(page).toMatch(new RegExp(`<tr data-target="${target.id}"`));
  });

  it(view.atN ? "has a leaderboard at each N, listing its target" : "has no leaderboard at N", () => {
    const at = join(outDir, `${under(target.scenario)}at`);
    if (!view.atN) {
      expect(existsSync(at)).toBe(false);
      return;
    }
    expect(html(`${under(target.scenario)}at/1/`)).toMatch(
      new RegExp(`<tr data-target="${target.id}" data-kind="${kind}"`),
    );
  });
});
