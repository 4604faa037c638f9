/**
 * @module The conversation: users in conversation, each turn re-sending the history so far, N
 * conversations in flight. Its levels are a closed loop's concurrencies, and its pages are a closed
 * loop's with the turns in front: it is ranked by what the later turns wait for their first token, and
 * its target page draws TTFT and the cached share turn by turn (what the route's prompt cache does).
 */
import { type CacheVerdict, concurrencyOf, loadWords, sameLoad } from "@kneeboard/core/run";
import { type TurnPoint, turnsSpec } from "../lib/charts/index.ts";
import { fmt, pct } from "../lib/format.ts";
import {
  type RankedRow,
  type RankingColumns,
  type RankingWords,
  rankedLowerFirst,
  rankingTable,
  viewNotes,
} from "../lib/ranking-table.ts";
import type { RankingContext, RankingTable } from "../lib/rankings.ts";
import type { TargetView } from "../lib/site-data.ts";
import { num, text } from "../lib/table.ts";
import { finite, type SectionDef, type TargetContext } from "../lib/target-charts.ts";
import { levelAttr, levelCell } from "./cells.ts";
import { closed } from "./closed.ts";
import type { KindView } from "./view.ts";

/** Short words for a conversation level's prompt-cache verdict, in a ranking's cell. */
const CACHE_CELL: Record<CacheVerdict, string> = {
  reported: "reported",
  no_cache_seen: "no prompt cache seen",
  not_reported: "cache not reported",
  undetermined: "too little to tell",
};

/**
 * The level a conversation ranking compares routes at: the highest concurrency every route ranks (valid
 * in most runs), so each is judged with as many users in conversation; else each route's own highest.
 */
function conversationLevel(views: readonly TargetView[]): number | null {
  const ranked = views.map(
    (v) =>
      new Set(v.standing.levels.filter((l) => l.ranked && l.laterTurnsTtftP50Ms).map((l) => concurrencyOf(l.load))),
  );
  const common = [...(ranked[0] ?? [])].filter((n): n is number => n !== null && ranked.every((r) => r.has(n)));
  return common.length > 0 ? Math.max(...common) : null;
}

/** A route's conversation row: its view, the level it is compared at, and that level's first turn in the latest run. */
interface ConversationRow {
  v: TargetView;
  level: TargetView["standing"]["levels"][number] | undefined;
  firstTurn: { ttftP50Ms: number | null } | undefined;
}

/** A conversation ranking's columns: the later turns' TTFT, the level, turn 1's TTFT, per-stream, the prompt cache. */
const COLUMNS: RankingColumns<ConversationRow & RankedRow> = {
  rankTitle: "1 + targets whose later-turn TTFT interval lies wholly below; = marks a shared rank",
  notes: viewNotes,
  figures: [
    {
      heading: "later turns TTFT p50 ms",
      type: "num",
      sorted: true,
      title: "time to first token p50 of turns 2 and later",
      cell: (r) => ({ kind: "estimate", estimate: r.level?.laterTurnsTtftP50Ms ?? null, digits: 0, tooltip: true }),
    },
    {
      heading: "at N",
      type: "num",
      title: "the users in conversation at once",
      cell: (r) => ({ kind: "number", value: r.level ? concurrencyOf(r.level.load) : null, digits: 0 }),
    },
    {
      heading: "turn 1 TTFT p50 ms",
      type: "num",
      title: "time to first token p50 of the first turn, latest run",
      cell: (r) => ({ kind: "number", value: r.firstTurn?.ttftP50Ms ?? null, digits: 0 }),
    },
    {
      heading: "per-stream tok/s",
      type: "num",
      title: "per-stream output tok/s (p50) at that level",
      cell: (r) => ({
        kind: "estimate",
        estimate: r.level?.perStreamOutputTokensPerSecondP50 ?? null,
        digits: 1,
        tooltip: false,
      }),
    },
    {
      heading: "prompt cache",
      type: "text",
      className: "text",
      cell: (r) => ({ kind: "text", text: r.level?.cacheVerdict ? CACHE_CELL[r.level.cacheVerdict] : "—" }),
    },
  ],
};

/**
 * Conversations: ranked by the later turns' TTFT p50 (turn 2 on, where a prompt cache tells), lower
 * first, at one level for every route; per-stream tok/s beside it, and what the route's cache did.
 */
function ranking(views: readonly TargetView[], ctx: RankingContext): RankingTable {
  const common = conversationLevel(views);
  const rows = views.map((v): ConversationRow => {
    const candidates = v.standing.levels.filter((l) => l.ranked && l.laterTurnsTtftP50Ms);
    const level = common === null ? candidates.at(-1) : candidates.find((l) => concurrencyOf(l.load) === common);
    const firstTurn = v.latest.levels
      .find((l) => level && sameLoad(l.load, level.load))
      ?.conversation?.byTurn.find((t) => t.turn === 1);
    return { v, level, firstTurn };
  });
  const sorted = rankedLowerFirst(rows, (r) => r.level?.laterTurnsTtftP50Ms ?? null);
  const { windowHours, maxRuns } = ctx.window;
  const words: RankingWords = {
    kind: "conversation",
    id: "conversation-leaderboard",
    heading: `LLM conversations: what a chat's later turns wait${ctx.named ? ` (${ctx.scenario})` : ""}`,
    sectionHeading: `Conversations: later turns' TTFT${ctx.named ? ` (${ctx.scenario})` : ""}`,
    anchor: "conversations",
    lead: "Users in conversation re-send the whole history every turn. A route's prompt cache decides what a later turn waits for its first token: with a cache the history costs almost nothing to prefill, without one every turn pays for the whole conversation again. Ranked by the later turns' TTFT p50 (turn 2 on), lower first.",
    label: `Leaderboard of scenario ${ctx.scenario}, one row per target, ranked by the later turns' time to first token`,
    caption: [
      `Later-turn TTFT p50 and per-stream tok/s are medians over the target's valid runs of the last ${windowHours} hours (at most ${maxRuns} runs), the interval bounding each in brackets (`,
      `), at ${common === null ? "each route's highest level valid in most runs" : `N=${common}, the highest level every route ranks`}. Routes whose intervals overlap share a rank (=2). Turn 1's TTFT is the latest run's. Prompt cache: what the latest runs say of the route's cache (reported cached tokens; or, when none are reported, whether later turns' TTFT grows with the history).`,
    ],
    empty: "No runs yet.",
    footnote: "Each level's TTFT and cached share turn by turn are on each target's page.",
    levelLinks: [],
  };
  return rankingTable(words, COLUMNS, sorted, { grouped: false, ctx });
}

/** What a conversation level says of the route's prompt cache, in the words the pages use. */
export const CACHE_WORDS: Record<CacheVerdict, string> = {
  reported: "the route reports cached prompt tokens",
  no_cache_seen: "no prompt cache seen: later turns' TTFT grows with the history",
  not_reported: "cache not reported: later turns' TTFT stays flat, though no cached tokens are reported",
  undetermined: "too little to tell",
};

/** A conversation's TTFT and cached share by turn, per level of the latest run: what its prompt cache does. */
export function turnPoints(view: TargetView): TurnPoint[] {
  return view.latest.levels.flatMap((l) =>
    l.valid && l.conversation
      ? l.conversation.byTurn.map((t) => ({
          level: loadWords(l.load),
          turn: t.turn,
          ttftP50Ms: t.ttftP50Ms,
          cachedShare: t.cachedPromptTokenShare,
        }))
      : [],
  );
}

/** A conversation's own section, before a closed loop's: its figures and numbers by turn. */
const TURNS_SECTION: SectionDef<TargetContext> = {
  id: "turns",
  heading: "Turn by turn: the prompt cache",
  figures: [
    {
      id: "turns",
      title: "TTFT and cached share by turn",
      caption:
        "Each turn re-sends the conversation so far. TTFT p50 (top) and the share of prompt tokens the route reported cached (bottom) by turn, one line per level of the latest run, both from zero: with a prompt cache the later turns' TTFT stays near the first's; without one it grows with the history. What the levels say of the cache is in the table below.",
      empty: "Nothing to draw: the latest run has no valid conversation level; its figures are in the table below.",
      spec: ({ view }) => {
        const points = turnPoints(view);
        return points.some((p) => finite(p.ttftP50Ms))
          ? turnsSpec({ title: "TTFT and cached share by turn", points })
          : null;
      },
    },
  ],
  tables: ({ view }) => {
    const levels = view.latest.levels.filter((l) => l.conversation !== null);
    if (levels.length === 0) return [];
    const detail = (l: (typeof levels)[number]) =>
      view.details?.levels.find((d) => sameLoad(d.load, l.load))?.conversation?.cache.detail ?? null;
    return [
      {
        id: "turns-numbers",
        label: "TTFT and cached share by turn, per level of the latest run",
        caption: `By turn, latest run. The prompt cache: ${levels
          .map((l) => {
            const verdict = l.conversation?.cacheVerdict ?? "undetermined";
            const why = detail(l);
            // The level's own sentence where the run document has it, else the verdict in words.
            return `${loadWords(l.load)}: ${why ?? CACHE_WORDS[verdict]}`;
          })
          .join("; ")}.`,
        columns: [
          { head: closed.level.head },
          { head: "turn" },
          { head: "requests" },
          { head: "TTFT p50 ms" },
          { head: "TTFT p95 ms" },
          { head: "cached share" },
          { head: "valid", class: "text" },
        ],
        rows: levels.flatMap((l) =>
          (l.conversation?.byTurn ?? []).map((t) => ({
            data: { ...levelAttr(closed.axis, l.load), "data-turn": String(t.turn) },
            cells: [
              levelCell(closed.level, l.load),
              num(String(t.turn)),
              num(fmt(t.n)),
              num(fmt(t.ttftP50Ms)),
              num(fmt(t.ttftP95Ms)),
              num(pct(t.cachedPromptTokenShare, 0)),
              text(l.valid ? "yes" : "no"),
            ],
          })),
        ),
      },
    ];
  },
};

/** A conversation: a closed loop's view (its levels are N users in conversation), ranked by its later turns, its turns first on its page. */
export const conversation: KindView = {
  ...closed,
  board: { ...closed.board, ranking },
  target: [TURNS_SECTION, ...closed.target],
};
