/** @module The SSE layers alone, no server: reads cut anywhere, CRLF, UTF-8 cut mid-character, [DONE], malformed data. */
import { describe, expect, it } from "vitest";
import { LineDecoder, type LineSink, SseDecoder, type SseSink } from "./sse.ts";

/** The lines a decoder passes on, as strings. */
function lineCollector(): LineSink & { lines: string[] } {
  const lines: string[] = [];
  return { lines, line: (text, start, end) => lines.push(text.slice(start, end)) };
}

/** Decodes `reads` in turn, then ends: every line passed on. */
function linesOf(reads: (Buffer | string)[]): string[] {
  const sink = lineCollector();
  const decoder = new LineDecoder(sink);
  for (const read of reads) decoder.push(read);
  decoder.end();
  return sink.lines;
}

/** Every cut of `bytes` into reads of `size` bytes. */
const cutEvery = (bytes: Buffer, size: number) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

type Seen = { event: unknown; type: string | null } | { malformed: string };

/** What an event decoder passes on for `lines`, then its end. */
function eventsOf(lines: string[], decoder?: (sink: SseSink) => SseDecoder): Seen[] {
  const seen: Seen[] = [];
  const sink: SseSink = {
    event: (event, type) => seen.push({ event, type }),
    malformed: (error) => seen.push({ malformed: error }),
  };
  const events = decoder ? decoder(sink) : new SseDecoder(sink);
  for (const line of lines) events.line(`${line}\n`, 0, line.length);
  events.end();
  return seen;
}

/** Bytes through both layers, in reads of `size` bytes. */
function streamOf(text: string, size: number): Seen[] {
  const seen: Seen[] = [];
  const events = new SseDecoder({
    event: (event, type) => seen.push({ event, type }),
    malformed: (error) => seen.push({ malformed: error }),
  });
  const lines = new LineDecoder(events);
  for (const read of cutEvery(Buffer.from(text), size)) lines.push(read);
  lines.end();
  events.end();
  return seen;
}

describe("LineDecoder", () => {
  it("passes on each complete line, without its \\n or \\r\\n, blank lines included", () => {
    expect(linesOf(["a\nb\r\n\nc\r\n"])).toEqual(["a", "b", "", "c"]);
  });

  it("keeps a line split across reads until its end comes, a \\r\\n cut between \\r and \\n included", () => {
    const sink = lineCollector();
    const decoder = new LineDecoder(sink);
    decoder.push('data: {"a"');
    decoder.push(":1}\r");
    expect(sink.lines).toEqual([]);
    decoder.push("\nnext");
    expect(sink.lines).toEqual(['data: {"a":1}']);
    decoder.push("");
    decoder.push(" line\n");
    expect(sink.lines).toEqual(['data: {"a":1}', "next line"]);
  });

  it("passes on a last line without a newline at the end, and nothing more when the input ended on one", () => {
    expect(linesOf(["a\nlast"])).toEqual(["a", "last"]);
    expect(linesOf(["a\nlast\r"])).toEqual(["a", "last"]);
    expect(linesOf(["a\n"])).toEqual(["a"]);
    expect(linesOf([])).toEqual([]);
  });

  it("does not end a line at a lone \\r", () => {
    expect(linesOf(["a\rb\n"])).toEqual(["a\rb"]);
  });

  it("keeps multi-byte UTF-8 characters whole when reads cut them, at every cut", () => {
    const text = "data: héllo ✓ 𝄞 中文\r\n: comment ✓\n\nlast é";
    const bytes = Buffer.from(text);
    const whole = linesOf([bytes]);
    expect(whole).toEqual(["data: héllo ✓ 𝄞 中文", ": comment ✓", "", "last é"]);
    for (let size = 1; size <= 5; size++) expect(linesOf(cutEvery(bytes, size))).toEqual(whole);
    // Cut just inside the 4-byte character, then inside the 2-byte one.
    const clef = bytes.indexOf(Buffer.from("𝄞"));
    const e = bytes.indexOf(Buffer.from("é"));
    expect(linesOf([bytes.subarray(0, e + 1), bytes.subarray(e + 1, clef + 3), bytes.subarray(clef + 3)])).toEqual(
      whole,
    );
  });

  it("turns a character cut off by the end of the input into U+FFFD, and invalid bytes too", () => {
    const check = Buffer.from("✓");
    expect(linesOf([Buffer.concat([Buffer.from("a\nb"), check.subarray(0, 2)])])).toEqual(["a", "b\uFFFD"]);
    expect(linesOf([Buffer.from([0x61, 0xff, 0x62, 0x0a])])).toEqual(["a\uFFFDb"]);
  });
});

describe("SseDecoder", () => {
  const chunk = (content: string) => JSON.stringify({ choices: [{ delta: { content } }] });

  it("passes on each event's data parsed as JSON, at its blank line", () => {
    expect(eventsOf([`data: ${chunk("a")}`, "", `data:${chunk("b")}`, ""])).toEqual([
      { event: JSON.parse(chunk("a")), type: null },
      { event: JSON.parse(chunk("b")), type: null },
    ]);
  });

  it("skips comments, id and retry lines, unknown fields and blank lines without data", () => {
    expect(
      eventsOf([": keep-alive", "", "", "id: 7", "retry: 1000", "foo: bar", "data: 1", "", ":", "", "data: 2", ""]),
    ).toEqual([
      { event: 1, type: null },
      { event: 2, type: null },
    ]);
  });

  it("joins an event's data lines with \\n and reads its event: type", () => {
    expect(eventsOf(["event: error", 'data: {"error":', 'data:  {"message": "overloaded"}}', ""])).toEqual([
      { event: { error: { message: "overloaded" } }, type: "error" },
    ]);
    // The type is the event's own: the next one has none.
    expect(eventsOf(["event: x", "data: 1", "", "data: 2", ""])).toEqual([
      { event: 1, type: "x" },
      { event: 2, type: null },
    ]);
  });

  it("passes nothing on after [DONE]", () => {
    expect(eventsOf(["data: 1", "", "data: [DONE]", "", "data: 2", ""])).toEqual([{ event: 1, type: null }]);
  });

  it("reports malformed data once, in the client's words, and passes nothing on after it", () => {
    const seen = eventsOf(["data: 1", "", "data: {not json", "", "data: 2", "", "data: {also not", ""]);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual({ event: 1, type: null });
    expect((seen[1] as { malformed: string }).malformed).toMatch(/^malformed SSE data: .*JSON/);
  });

  it("dispatches an event the stream left open at its end", () => {
    expect(eventsOf(["data: 1", "", "data: 2"])).toEqual([
      { event: 1, type: null },
      { event: 2, type: null },
    ]);
  });

  it("passes nothing on once stopped", () => {
    let decoder: SseDecoder | undefined;
    const seen = eventsOf(["data: 1", "", "data: 2", ""], (sink) => {
      decoder = new SseDecoder({
        event: (event, type) => {
          sink.event(event, type);
          decoder?.stop();
        },
        malformed: (error) => sink.malformed(error),
      });
      return decoder;
    });
    expect(seen).toEqual([{ event: 1, type: null }]);
  });
});

describe("LineDecoder into SseDecoder", () => {
  it("reads the same events from a stream cut into reads of any size", () => {
    const event = (content: string, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\r\n\r\n`;
    const text = `: hello\n\n${event("héllo ✓")}${event("𝄞 中文")}event: ping\ndata: {}\n\n${event("", "stop")}data: [DONE]\n\n`;
    const whole = streamOf(text, text.length * 4);
    expect(whole.map((s) => ("type" in s ? s.type : s))).toEqual([null, null, "ping", null]);
    expect(whole[0]).toMatchObject({ event: { choices: [{ delta: { content: "héllo ✓" } }] } });
    for (const size of [1, 2, 3, 7, 64]) expect(streamOf(text, size)).toEqual(whole);
  });

  it("reports malformed data in the middle of a stream and reads nothing after it", () => {
    const seen = streamOf('data: {"a":1}\n\ndata: {"a":\n\ndata: {"a":2}\n\n', 5);
    expect(seen[0]).toEqual({ event: { a: 1 }, type: null });
    expect(seen[1]).toMatchObject({ malformed: expect.stringMatching(/^malformed SSE data:/) });
    expect(seen).toHaveLength(2);
  });
});
