/**
 * @module Recorded traces a sweep replays (docs/config.md#trace-replay): Mooncake JSONL and BurstGPT
 * CSV read into requests, the window a config picks, the prompt tokens its `hash_ids` allow from a
 * prefix cache, and the prompts that share exactly those prefixes.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { type Config, scenariosOf, workloadFor } from "../config/index.ts";
import { ConfigError, type ConfigProblem } from "../errors/index.ts";
import { replayedArrival } from "../kinds/index.ts";
import {
  type ParsedTrace,
  type TraceArrival,
  type TraceFormat,
  type TraceRequest,
  type Traces,
  type TraceWindow,
  traceKey,
} from "../kinds/trace/index.ts";

export { traceKey, traceOf } from "../kinds/trace/index.ts";
export type { ParsedTrace, TraceArrival, TraceRequest, Traces, TraceWindow };

/** The largest trace kneeboard reads, bytes: deployed, the trace travels with the config to the sweep function. */
export const MAX_TRACE_BYTES = 50 * 1024 * 1024;

/** Problems of one trace file reported at most; the rest are counted. */
const MAX_PROBLEMS = 20;

const problemAt = (line: number, field: string, message: string): ConfigProblem => ({
  path: `line ${line}, field ${field}`,
  message,
});

const isCount = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x) && x >= 0;

/** Mooncake JSONL: one object a line with `timestamp` (ms), `input_length`, `output_length`, optional `hash_ids`. */
function parseMooncake(text: string, problems: ConfigProblem[]): ParsedTrace {
  const requests: TraceRequest[] = [];
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch (error) {
      problems.push(problemAt(line, "(line)", `not a JSON object: ${(error as Error).message}`));
      return;
    }
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      problems.push(problemAt(line, "(line)", "not a JSON object"));
      return;
    }
    const r = row as Record<string, unknown>;
    const bad = (field: string, rule: string) =>
      problems.push(
        problemAt(line, field, r[field] === undefined ? `missing (${rule})` : `${JSON.stringify(r[field])}: ${rule}`),
      );
    let ok = true;
    if (typeof r.timestamp !== "number" || !Number.isFinite(r.timestamp) || r.timestamp < 0)
      ok = !!bad("timestamp", "must be ms from the trace's start, a number >= 0");
    if (!isCount(r.input_length)) ok = !!bad("input_length", "must be a whole number of prompt tokens >= 0");
    if (!isCount(r.output_length) || r.output_length < 1)
      ok = !!bad("output_length", "must be a whole number of output tokens >= 1");
    if (r.hash_ids !== undefined && (!Array.isArray(r.hash_ids) || !r.hash_ids.every(isCount)))
      ok = !!bad("hash_ids", "must be a list of whole numbers >= 0");
    if (!ok) return;
    requests.push({
      timestampMs: r.timestamp as number,
      inputTokens: r.input_length as number,
      outputTokens: r.output_length as number,
      hashIds: Array.isArray(r.hash_ids) ? (r.hash_ids as number[]) : null,
    });
  });
  return { requests, skippedMs: [] };
}

const BURSTGPT_COLUMNS = { timestamp: "Timestamp", input: "Request tokens", output: "Response tokens" } as const;

/** One CSV line's fields (BurstGPT's have no commas inside; quotes around a field are dropped). */
const csvFields = (line: string) => line.split(",").map((f) => f.trim().replace(/^"(.*)"$/, "$1"));

/**
 * BurstGPT CSV with a header: `Timestamp` (s), `Request tokens`, `Response tokens`; other columns
 * ignored. Rows with 0 response tokens (failures in the source) are skipped and counted.
 */
function parseBurstGpt(text: string, problems: ConfigProblem[]): ParsedTrace {
  const lines = text.split(/\r?\n/);
  const header = csvFields(lines[0] ?? "");
  const column = {
    timestamp: header.indexOf(BURSTGPT_COLUMNS.timestamp),
    input: header.indexOf(BURSTGPT_COLUMNS.input),
    output: header.indexOf(BURSTGPT_COLUMNS.output),
  };
  const missing = (Object.keys(column) as (keyof typeof column)[]).filter((k) => column[k] < 0);
  if (missing.length > 0) {
    for (const k of missing)
      problems.push(
        problemAt(
          1,
          BURSTGPT_COLUMNS[k],
          `the header has no column "${BURSTGPT_COLUMNS[k]}" (it has ${header.join(", ")})`,
        ),
      );
    return { requests: [], skippedMs: [] };
  }
  const requests: TraceRequest[] = [];
  const skippedMs: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const raw = lines[i] as string;
    const line = i + 1;
    if (raw.trim() === "") continue;
    const fields = csvFields(raw);
    const number = (k: keyof typeof column, rule: string, test: (n: number) => boolean): number | null => {
      const text = fields[column[k]];
      const name = BURSTGPT_COLUMNS[k];
      if (text === undefined || text === "") {
        problems.push(problemAt(line, name, `missing (${rule})`));
        return null;
      }
      const n = Number(text);
      if (!Number.isFinite(n) || !test(n)) {
        problems.push(problemAt(line, name, `${JSON.stringify(text)}: ${rule}`));
        return null;
      }
      return n;
    };
    const timestamp = number("timestamp", "must be seconds from the trace's start, a number >= 0", (n) => n >= 0);
    const input = number("input", "must be a whole number of prompt tokens >= 0", (n) => isCount(n));
    const output = number("output", "must be a whole number of output tokens >= 0", (n) => isCount(n));
    if (timestamp === null || input === null || output === null) continue;
    if (output === 0) skippedMs.push(timestamp * 1000);
    else requests.push({ timestampMs: timestamp * 1000, inputTokens: input, outputTokens: output, hashIds: null });
  }
  return { requests, skippedMs };
}

/**
 * A trace file's requests in time order. Every line or row that does not parse or lacks a field is a
 * problem naming its line and field; they are thrown together as a `ConfigError` of `file`.
 */
export function parseTrace(text: string, format: TraceFormat, file: string): ParsedTrace {
  const problems: ConfigProblem[] = [];
  const parsed = format === "mooncake" ? parseMooncake(text, problems) : parseBurstGpt(text, problems);
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_PROBLEMS);
    if (problems.length > MAX_PROBLEMS)
      shown.push({ path: "(file)", message: `and ${problems.length - MAX_PROBLEMS} more problems` });
    throw new ConfigError(shown, file);
  }
  // Stable: requests recorded at the same time keep the file's order.
  parsed.requests.sort((a, b) => a.timestampMs - b.timestampMs);
  return parsed;
}

/**
 * Each request's prompt tokens that a perfect prefix cache could serve: its leading `hash_ids` blocks
 * (each `blockSize` tokens, the last cut at its input length) whose whole prefix was already sent by an
 * earlier request of `requests`, counted up to the first block that was not (or only in part).
 */
export function reusableTokens(requests: readonly TraceRequest[], blockSize: number): number[] {
  // Tokens sent so far of each prefix, keyed by its ids up to and including the block.
  const sent = new Map<string, number>();
  return requests.map((request) => {
    const ids = request.hashIds ?? [];
    const blocks = Math.min(ids.length, Math.ceil(request.inputTokens / blockSize));
    let reusable = 0;
    let reusing = true;
    let key = "";
    for (let b = 0; b < blocks; b++) {
      key += `${ids[b]},`;
      const tokens = Math.min(blockSize, request.inputTokens - b * blockSize);
      const before = sent.get(key) ?? 0;
      if (reusing) {
        reusable += Math.min(tokens, before);
        reusing = before >= tokens;
      }
      if (tokens > before) sent.set(key, tokens);
    }
    return reusable;
  });
}

/**
 * The window of a parsed trace: requests from `start` seconds on, at most `limit`; throws a
 * `ConfigError` of `file` when it holds none.
 */
export function traceWindow(
  parsed: ParsedTrace,
  arrival: Pick<TraceArrival, "format" | "start" | "limit" | "blockSize">,
  file: { path: string; sha256: string; bytes: number },
): TraceWindow {
  const startMs = arrival.start * 1000;
  const from = parsed.requests.filter((r) => r.timestampMs >= startMs);
  const requests = arrival.limit === undefined ? from : from.slice(0, arrival.limit);
  const first = requests[0];
  const last = requests.at(-1);
  if (first === undefined || last === undefined)
    throw new ConfigError(
      [
        {
          path: "(window)",
          message: `the window holds no request: ${parsed.requests.length} requests in the file, none from start ${arrival.start} s${arrival.limit !== undefined ? ` (limit ${arrival.limit})` : ""}`,
        },
      ],
      file.path,
    );
  const reusable = reusableTokens(requests, arrival.blockSize);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const inputTokens = sum(requests.map((r) => r.inputTokens));
  // A limited window ends at its last request; skipped rows after it are outside.
  const endMs = arrival.limit === undefined ? Number.POSITIVE_INFINITY : last.timestampMs;
  return {
    name: basename(file.path),
    format: arrival.format,
    sha256: file.sha256,
    bytes: file.bytes,
    start: arrival.start,
    limit: arrival.limit ?? null,
    blockSize: arrival.blockSize,
    requests,
    offsetsMs: requests.map((r) => r.timestampMs - first.timestampMs),
    reusablePromptTokens: reusable,
    durationSeconds: (last.timestampMs - first.timestampMs) / 1000,
    inputTokens,
    outputTokens: sum(requests.map((r) => r.outputTokens)),
    reusablePromptTokenShare: inputTokens > 0 ? sum(reusable) / inputTokens : 0,
    skipped: parsed.skippedMs.filter((ms) => ms >= startMs && ms <= endMs).length,
  };
}

/** Where a trace arrival's file is: resolved relative to the config file's folder. */
export function tracePath(configFile: string, arrival: Pick<TraceArrival, "file">): string {
  return resolve(dirname(configFile), arrival.file);
}

/** Reads one trace arrival's file (at most `MAX_TRACE_BYTES`) and cuts its window. */
export function loadTrace(configFile: string, arrival: TraceArrival): TraceWindow {
  const path = tracePath(configFile, arrival);
  let bytes: number;
  try {
    bytes = statSync(path).size;
  } catch (error) {
    throw new ConfigError(
      [{ path: "(file)", message: `cannot read the trace: ${(error as NodeJS.ErrnoException).code ?? error}` }],
      path,
    );
  }
  if (bytes > MAX_TRACE_BYTES)
    throw new ConfigError(
      [
        {
          path: "(file)",
          message: `the trace is ${(bytes / 1024 / 1024).toFixed(1)} MB, over the 50 MB kneeboard reads: deployed, a trace travels with the config to the sweep function, so cut the window you replay into a file of its own`,
        },
      ],
      path,
    );
  const content = readFileSync(path);
  const sha256 = createHash("sha256").update(content).digest("hex");
  return traceWindow(parseTrace(content.toString("utf8"), arrival.format, path), arrival, { path, sha256, bytes });
}

/** Every trace arrival of a config's workloads (global, per target, per scenario), once per window. */
export function traceArrivals(config: Config): TraceArrival[] {
  const found = new Map<string, TraceArrival>();
  for (const target of config.targets)
    for (const scenario of scenariosOf(config, target)) {
      const replayed = replayedArrival(workloadFor(config, target, scenario).arrival);
      if (replayed) found.set(traceKey(replayed), replayed);
    }
  return [...found.values()];
}

/** Reads the window of every trace a config replays, its files resolved relative to `configFile`. */
export function loadTraces(config: Config, configFile: string): Traces {
  return new Map(traceArrivals(config).map((arrival) => [traceKey(arrival), loadTrace(configFile, arrival)]));
}

/** What the run document records of a replayed window (`TraceRecord` of the run document). */
export function traceRecord(window: TraceWindow) {
  return {
    name: window.name,
    format: window.format,
    sha256: window.sha256,
    start: window.start,
    limit: window.limit,
    requests: window.requests.length,
    durationSeconds: window.durationSeconds,
    skipped: window.skipped,
    blockSize: window.blockSize,
    inputTokens: window.inputTokens,
    outputTokens: window.outputTokens,
    reusablePromptTokenShare: window.reusablePromptTokenShare,
  };
}

// Common English words, mostly one token each in the usual tokenizers.
const WORDS =
  "the river carries light across old stone while people walk slowly toward a quiet market where bread and fruit wait under wide canvas roofs".split(
    " ",
  );

/** `chars` characters of filler words after `head`, cut exactly. */
function filled(head: string, chars: number, seed: number): string {
  const parts = [head];
  let length = head.length;
  for (let i = seed; length < chars; i++) {
    const word = WORDS[i % WORDS.length] as string;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(" ").slice(0, Math.max(0, chars));
}

/** Where a replayed prompt belongs: its run and level salt every block, so no other run or level shares it. */
export interface ReplayPlace {
  runId: string;
  level: number;
  blockSize: number;
  /** Characters per prompt token the prompts are sized with, fixed for the level so a block's text never changes within it. */
  charsPerToken: number;
}

/**
 * The prompt of a replayed request: its `hash_ids` blocks in order, each the same text wherever the id
 * recurs in the level's replay, then unique text for any tokens past them (all of it without
 * `hash_ids`), cut to its input length; nothing comes before the blocks, so requests that share
 * leading ids share exactly that prefix. At least one token long.
 */
export function replayPrompt(request: TraceRequest, index: number, place: ReplayPlace): string {
  const blockChars = Math.max(1, Math.round(place.blockSize * place.charsPerToken));
  const totalChars = Math.max(1, Math.round(Math.max(1, request.inputTokens) * place.charsPerToken));
  const salt = `level ${place.level} of run ${place.runId}`;
  const parts: string[] = [];
  let length = 0;
  for (let b = 0; length < totalChars; b++) {
    const id = request.hashIds?.[b];
    const text =
      id !== undefined
        ? filled(`block ${id} at ${salt}:`, blockChars, id)
        : filled(`${index} part ${b} at ${salt}: request.`, blockChars, index + b);
    parts.push(text);
    length += text.length;
  }
  return parts.join("").slice(0, totalChars);
}

/**
 * The trace files a deployment copies beside the config (copied as `kneeboard.config.json` at the
 * bundle's root): each from its place relative to `configFile` to the same relative path in the
 * bundle, so the sweep function resolves it as `kneeboard run` does. A trace outside the config's
 * folder (`..`, an absolute path) cannot keep its path there and is refused, as is one over 50 MB.
 */
export function deployedTraceFiles(config: Config, configFile: string): { from: string; to: string }[] {
  const problems: ConfigProblem[] = [];
  const files = new Map<string, string>();
  for (const arrival of traceArrivals(config)) {
    const to = relative(dirname(resolve(configFile)), tracePath(configFile, arrival))
      .split(sep)
      .join("/");
    if (to.startsWith("../") || to === ".." || isAbsolute(to))
      problems.push({
        path: "(trace)",
        message: `the trace ${arrival.file} is outside the config's folder: deployed, a trace travels beside the config at the same relative path, so move it into that folder (or below)`,
      });
    else files.set(to, tracePath(configFile, arrival));
  }
  if (problems.length > 0) throw new ConfigError(problems, configFile);
  // Read and checked as a plan reads them: a bad line or a file over 50 MB stops the deploy.
  loadTraces(config, configFile);
  return [...files].map(([to, from]) => ({ from, to }));
}
