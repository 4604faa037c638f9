/**
 * @module The docs stay in step with the code: every config field is documented, the deployment's
 * figures are the wiring's, and nothing points outside the repository.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALERTS_KEY, Alert, AlertsFile, MetricChange, SeriesLevel } from "@kneeboard/core/alerts";
import { configJsonSchema, parseConfig } from "@kneeboard/core/config";
import { targetFeedKey, writeAlerts } from "@kneeboard/core/feeds";
import { VALIDITY_RULES } from "@kneeboard/core/metrics";
import { notifies, slackMessage } from "@kneeboard/core/notify";
import { type InvalidCode, InvalidReason } from "@kneeboard/core/run";
import {
  BATCH_BUILD_BUDGET_SECONDS,
  FAN_OUT_TARGETS,
  FULL_BUILD_SECONDS_PER_TARGET,
  fanOutSlot,
  MemoryQueue,
  REBUILD_STAGING_PREFIX,
  SweepMessage,
  slotSweeps,
  targetsPerBatch,
} from "@kneeboard/core/scheduled";
import { FolderStore } from "@kneeboard/core/store/folder";
import { type LoadedSstConfig, loadSstConfig, THREE_SWEEPS_CONFIG } from "@kneeboard/functions/testing/sst";
import { markdownHtml, methodologyHtml } from "@kneeboard/site/lib/methodology.ts";
import { beforeAll, describe, expect, it } from "vitest";

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

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/** The anchors of a Markdown file's headings (outside code blocks), repeats numbered as GitHub numbers them. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(heading as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

describe("the README and docs", () => {
  const files = ["README.md", "CONTRIBUTING.md", ...readdirSync(new URL("docs/", ROOT)).map((f) => `docs/${f}`)].filter(
    (f) => f.endsWith(".md"),
  );
  // Spelled in parts, so that a grep of the repository for the outside folder finds nothing, this test included.
  const outside = ["..", "shared"].join("/");
  it.each(files)("%s points only inside the repository", (file) => {
    const text = read(file);
    expect(text).not.toContain(outside);
    expect(text).not.toMatch(/SPEC(\.md)? section/);
  });

  /** Links known broken, each to be mended where it stands (none today). */
  const KNOWN_BROKEN: Record<string, string[]> = {};
  it.each(files)("%s links only to files and headings that exist", (file) => {
    const text = read(file).replace(/^```[\s\S]*?^```/gm, "");
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((l) => !/^[a-z]+:/.test(l));
    const broken = links.filter((link) => {
      const [path, anchor] = link.split("#") as [string, string | undefined];
      const target = path ? new URL(path, new URL(file, ROOT)) : new URL(file, ROOT);
      if (!existsSync(target)) return true;
      return (
        anchor !== undefined && target.pathname.endsWith(".md") && !anchors(readFileSync(target, "utf8")).has(anchor)
      );
    });
    expect(broken).toEqual((KNOWN_BROKEN[file] ?? []).filter((link) => links.includes(link)));
  });
});

describe("the README a newcomer reads in two minutes", () => {
  const readme = read("README.md");

  it("is at most 150 lines", () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(150);
  });

  it("has the two set-up commands and the four commands of measuring your own endpoint", () => {
    expect(readme).toMatch(/^npm ci && npm start\b/m);
    expect(readme).toMatch(/^npm test\b/m);
    // The four are the ones test/readme-endpoint.test.ts runs.
    const commands = [...readme.matchAll(/^npx kneeboard (\S+)/gm)].map((m) => m[1]);
    expect(commands).toEqual(["plan", "run", "site", "preview"]);
  });

  it("states the Node versions package.json's engines allow, and the other pages point to it", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    // ">=20.18.1 <21 || >=22": 20 from 20.18.1, not 21, 22 and later.
    const [, least20, from] = /^>=(20\.\d+\.\d+) <21 \|\| >=(\d+)$/.exec(engines) ?? [];
    expect(least20, engines).toBeDefined();
    expect(readme).toContain(`On Node 20 (${least20} or later) or Node ${from} or later (21 is left out`);
    expect(read("docs/deploying.md")).toContain("Node and npm as the [README](../README.md#set-up) says");
    expect(read("CONTRIBUTING.md")).toContain(`Node ${least20} or later in 20, or ${from} or later`);
  });

  it("names the license", () => {
    expect(readme).toContain("Apache-2.0");
    expect(existsSync(new URL("LICENSE", ROOT))).toBe(true);
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

  it("says of a search's cost what its own figures show: fewer requests than the ladder, on speed alone and with a TTFT limit, within a budget", () => {
    const section = markdown.split(/^## /m).find((s) => s.startsWith("Searched levels\n")) ?? "";
    const speed = /Per-stream SLO only.*?for (\d+) requests sent[\s\S]*?ladder 1\.\.\d+'s (\d+) measured/.exec(section);
    const ttft = /The search sends (\d+) requests against the ladder's (\d+)/.exec(section);
    expect(speed && ttft, "the section's two comparisons").toBeTruthy();
    expect(Number(speed?.[1])).toBeLessThan(Number(speed?.[2]));
    expect(Number(ttft?.[1])).toBeLessThan(Number(ttft?.[2]));
    expect(section).toContain("never for more requests than a stated budget");
    expect(section).not.toContain("for fewer requests than a ladder");
  });

  it("escapes raw HTML and makes no request to another origin", () => {
    expect(markdownHtml('<script src="https://example.com/x.js"></script>\n\n| a |\n|---|\n| 1 |')).not.toContain(
      "<script",
    );
    expect(markdownHtml("| a |\n|---|\n| 1 |")).toContain("<table>");
    expect(markdown).not.toMatch(/!\[[^\]]*\]\(https?:/);
  });
});

describe("docs/deploying.md states what sst.config.ts and functions/ do", () => {
  const doc = read("docs/deploying.md");
  /** Target a sweeps in chat and rag, b in rag only: three sweeps a slot for two targets. */
  const config = JSON.stringify(THREE_SWEEPS_CONFIG);
  let wiring: LoadedSstConfig;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "kneeboard-docs-"));
    writeFileSync(join(dir, "kneeboard.config.json"), config);
    wiring = await loadSstConfig({ KNEEBOARD_CONFIG: join(dir, "kneeboard.config.json") });
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives the deliveries before a dead letter as `dlq.retry` makes them (SQS's maxReceiveCount counts the first)", () => {
    const [, retry] = /`dlq\.retry: (\d+)`/.exec(doc) ?? [];
    const [, times] = /delivered at most (once|twice|\w+ times)/.exec(doc) ?? [];
    for (const queue of ["SweepQueue", "PublishQueue"])
      expect(wiring.byName(queue).args.dlq).toMatchObject({ retry: Number(retry) });
    const deliveries: Record<string, number> = { once: 1, twice: 2, "three times": 3, "four times": 4 };
    expect(deliveries[times as string]).toBe(Number(retry));
  });

  it("states the fan-out's threshold, batch size and staging prefix as publish computes them", () => {
    const section = doc.slice(doc.indexOf("### A full rebuild past one invocation")).replace(/\s+/g, " ");
    const perTarget = FULL_BUILD_SECONDS_PER_TARGET.toFixed(2);
    expect(section).toContain(`about ${perTarget} s a target`);
    expect(section).toContain(`more than ${FAN_OUT_TARGETS} targets (${BATCH_BUILD_BUDGET_SECONDS} s of building`);
    expect(section).toContain(`groups of ${targetsPerBatch(FAN_OUT_TARGETS)}`);
    expect(section).toContain(`\`${REBUILD_STAGING_PREFIX}<generation>/\``);
    expect(doc).toMatch(new RegExp(`\\| \`KNEEBOARD_PUBLISH_FANOUT_TARGETS\` \\| ${FAN_OUT_TARGETS} +\\|`));
    const visibility = String(wiring.byName("PublishQueue").args.visibilityTimeout);
    expect(section).toContain(`after the ${visibility.replace(" minutes", "-minute")} visibility timeout`);
  });

  it("lists the results bucket's public paths as its policy opens them, and the site's /data/", () => {
    const policy = wiring.byName("Results").args.policy as { paths: string[] }[];
    const opened = policy.flatMap((p) => p.paths.map((path) => path.replace(/\*$/, ""))).sort();
    const lists = [...doc.matchAll(/(?:publicly readable under|made) ((?:`[^`]+`(?:, | and )?)+) (?:only|public)/g)];
    expect(lists).toHaveLength(2);
    for (const [, list] of lists)
      expect([...(list as string).matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort()).toEqual(opened);
    // The store's keys under /data/ are the site's (publish uploads them there), not the bucket's.
    expect(opened).not.toContain("data/");
    expect(String(wiring.outputs.data)).toBe("Site.url/data/");
    expect(doc).toContain("- `data`: the site's `/data/`");
  });

  it("counts one message per (target, scenario) a slot, as plan sends them, and gives the schedule's event", async () => {
    const phrases = [...doc.matchAll(/\bone (?:sweep )?message per (\([^)]*\)|\w+)/g)].map((m) => m[1]);
    expect(phrases.length).toBeGreaterThan(2);
    expect(new Set(phrases)).toEqual(new Set(["(target, scenario)"]));
    const queue = new MemoryQueue();
    const { planned } = await fanOutSlot(slotSweeps(parseConfig(config)), "2026-12-03T06:00:00Z", queue);
    const sent = queue.sent.map((m) => SweepMessage.parse(JSON.parse(m.body)));
    expect(sent.map((m) => `${m.targetId}/${m.scenario ?? "chat"}`)).toEqual(["a/chat", "a/rag", "b/rag"]);
    expect(planned).toBe(3);
    const [, event] = /`(\{ "time": [^`]+\})`/.exec(doc) ?? [];
    expect(JSON.parse(event as string)).toEqual(wiring.byName("Schedule").args.event);
  });
});

describe("docs/alerts.md: its examples are what the code writes for its example alert", () => {
  const doc = read("docs/alerts.md");
  /** The first fenced block in `lang` of the section headed `## <heading>`. */
  const block = (heading: string, lang: string): string => {
    const section = doc.split(/^## /m).find((s) => s.startsWith(`${heading}\n`)) ?? "";
    const [, body] = new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\n\`\`\``).exec(section) ?? [];
    if (body === undefined) throw new Error(`docs/alerts.md has no ${lang} block under "## ${heading}"`);
    return body;
  };
  const example = JSON.parse(block("`alerts.json`", "json")) as unknown;
  const file = AlertsFile.parse(example);
  const alert = file.alerts[0] as Alert;

  it("gives an alerts.json the schema reads back unchanged, and names every field of it", () => {
    expect(file).toEqual(example);
    expect(notifies(alert)).toBe(true);
    const fields = [AlertsFile, Alert, MetricChange, SeriesLevel].flatMap((schema) => Object.keys(schema.shape));
    for (const field of fields) expect(doc).toMatch(new RegExp(`\`${field}(\\[\\])?\``));
  });

  it("gives the alerts.json and the target's Atom feed that writeAlerts writes, under a known site URL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kneeboard-docs-alerts-"));
    const store = new FolderStore(dir);
    const site = "https://kneeboard.example";
    expect(doc).toContain(`for a site at \`${site}\``);
    await writeAlerts(store, file.alerts, {
      now: "2030-01-01T00:00:00.000Z",
      targetIds: [alert.targetId],
      siteUrl: site,
    });
    expect(JSON.parse((await store.get(ALERTS_KEY)) as string)).toEqual(example);
    expect(((await store.get(targetFeedKey(alert.targetId))) as string).trimEnd()).toBe(block("Atom feeds", "xml"));
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives the webhook body that is posted for it", () => {
    expect(JSON.parse(block("Webhook", "json"))).toEqual(slackMessage(alert));
  });
});

/**
 * What the docs' table of invalid reasons (docs/run-document.md#invalid-reasons) says otherwise than
 * the code's table of rules: a code missing, extra or out of order, a `detail` whose fields are not the
 * run document schema's, a limit the row does not state. Empty when the two agree.
 */
function ruleTableMismatches(markdown: string): string[] {
  const section = markdown.split(/^### /m).find((s) => s.startsWith("Invalid reasons\n")) ?? "";
  const rows = section
    .split("\n")
    .map((line) => /^\| `([a-z_]+)` +\| `\{ ([^}]*) \}` +\| (.*?) +\|$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(([, code, detail, rule]) => ({
      code: code as string,
      detail: (detail as string).split(", "),
      rule: rule as string,
    }));
  const codes = Object.keys(VALIDITY_RULES) as InvalidCode[];
  const problems: string[] = [];
  if (rows.map((r) => r.code).join() !== codes.join())
    problems.push(`codes: docs ${rows.map((r) => r.code).join()} but code ${codes.join()}`);
  for (const row of rows) {
    const schema = InvalidReason.options.find((o) => o.shape.code.value === row.code);
    const fields = Object.keys(schema?.shape.detail.shape ?? {});
    if (row.detail.join() !== fields.join())
      problems.push(`${row.code}: detail { ${row.detail.join(", ")} } but the schema's { ${fields.join(", ")} }`);
    const limit = VALIDITY_RULES[row.code as InvalidCode]?.limit;
    // The limit as its own figure: `5 %` is not found in `15 %`, nor `4` in `40`.
    const escaped = limit?.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (escaped && !new RegExp(`(?<![\\d.])${escaped}(?![\\d])`).test(row.rule))
      problems.push(`${row.code}: the row does not state the limit ${limit}`);
  }
  return problems;
}

describe("docs/run-document.md's table of invalid reasons is the code's table of rules", () => {
  const markdown = read("docs/run-document.md");

  it("lists every rule in the order a level's `invalid` does, with its detail's fields and its limit", () => {
    expect(ruleTableMismatches(markdown)).toEqual([]);
  });

  it("would tell a changed limit, a missing or moved row and a renamed field", () => {
    expect(
      ruleTableMismatches(markdown.replace("route mismatches over 5 % of sent", "route mismatches over 10 % of sent")),
    ).toEqual(["route_mismatch: the row does not state the limit 5 %"]);
    expect(
      ruleTableMismatches(
        markdown.replace(
          "open loop, trace replay: fewer requests than `minimum` (20)",
          "open loop, trace replay: fewer requests than `minimum` (200)",
        ),
      ),
    ).toEqual(["open_too_few_requests: the row does not state the limit 20"]);
    const lines = markdown.split("\n");
    const cached = lines.findIndex((l) => l.startsWith("| `cached_prompt`"));
    const withoutCached = lines.filter((_, i) => i !== cached).join("\n");
    expect(ruleTableMismatches(withoutCached)).toHaveLength(1);
    const rateOff = lines.findIndex((l) => l.startsWith("| `open_rate_off`"));
    const moved = [...lines];
    [moved[cached], moved[rateOff]] = [moved[rateOff] as string, moved[cached] as string];
    expect(ruleTableMismatches(moved.join("\n"))[0]).toMatch(/^codes: /);
    expect(
      ruleTableMismatches(markdown.replace("`{ scheduleLagP99Ms, toleranceMs }`", "`{ lagP99Ms, toleranceMs }`")),
    ).toEqual([
      "client_schedule_lag: detail { lagP99Ms, toleranceMs } but the schema's { scheduleLagP99Ms, toleranceMs }",
    ]);
  });
});
