/** @module Server-sent events in two layers, each usable alone: bytes to lines, lines to JSON `data:` events. */
import { StringDecoder } from "node:string_decoder";

/**
 * Takes each complete line as a range of a text, so that no line is copied: the line is
 * `text.slice(start, end)`, its `\n` (or `\r\n`) left out.
 */
export interface LineSink {
  line(text: string, start: number, end: number): void;
}

/**
 * Bytes to complete lines: reads are decoded as UTF-8 (a character cut across reads kept whole
 * until its last byte comes), a line split across reads waits for its end. Lines end at `\n`; a
 * `\r` just before it is dropped. A lone `\r` does not end a line.
 */
export class LineDecoder {
  private rest = "";
  private readonly utf8 = new StringDecoder("utf8");

  constructor(private readonly sink: LineSink) {}

  /** One read: bytes, or text already decoded. The sink gets every line it completes. */
  push(chunk: Buffer | string): void {
    const text = typeof chunk === "string" ? chunk : this.utf8.write(chunk);
    const buffer = this.rest.length > 0 ? this.rest + text : text;
    let from = 0;
    let newline = buffer.indexOf("\n", from);
    while (newline !== -1) {
      const end = newline > from && buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      this.sink.line(buffer, from, end);
      from = newline + 1;
      newline = buffer.indexOf("\n", from);
    }
    this.rest = from === buffer.length ? "" : buffer.slice(from);
  }

  /** The input ended: a last line without a newline is passed on (bytes of a cut character become U+FFFD). */
  end(): void {
    const tail = this.utf8.end();
    if (tail.length > 0 || this.rest.length > 0) this.push(`${tail}\n`);
  }
}

/** Takes the events of a chat stream. */
export interface SseSink {
  /** One event's data, parsed as JSON; `type` is its `event:` field, null without one. */
  event(data: unknown, type: string | null): void;
  /** An event's data was not JSON (`malformed SSE data: ...`): nothing is passed on after it. */
  malformed(error: string): void;
}

/**
 * Lines to events: `data:` lines joined per event (one space after the colon dropped), an event
 * dispatched at each blank line; comments (`:`), `id:`, `retry:` and unknown lines skipped. Data
 * starting `[DONE]` ends the stream: nothing is passed on after it, nor after malformed data or `stop`.
 */
export class SseDecoder implements LineSink {
  private data: string | null = null;
  private type: string | null = null;
  private stopped = false;

  constructor(private readonly sink: SseSink) {}

  line(text: string, start: number, end: number): void {
    if (end === start) this.dispatch();
    else if (text.startsWith("data:", start)) {
      const begin = text.charCodeAt(start + 5) === 32 ? start + 6 : start + 5;
      const line = text.slice(begin, end);
      this.data = this.data === null ? line : `${this.data}\n${line}`;
    } else if (text.startsWith("event:", start)) this.type = text.slice(start + 6, end).trim();
  }

  /** The lines ended: an event still open (no closing blank line) is dispatched as it stands. */
  end(): void {
    this.dispatch();
  }

  /** Passes nothing on from now: the reader is done with the stream. */
  stop(): void {
    this.stopped = true;
  }

  private dispatch(): void {
    const data = this.data;
    const type = this.type;
    this.data = null;
    this.type = null;
    if (data === null || this.stopped) return;
    if (data.startsWith("[DONE]")) {
      this.stopped = true;
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch (error) {
      this.stopped = true;
      this.sink.malformed(`malformed SSE data: ${(error as Error).message}`);
      return;
    }
    this.sink.event(value, type);
  }
}
