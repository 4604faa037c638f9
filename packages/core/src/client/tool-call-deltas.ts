/**
 * @module Tool calls assembled from a stream's deltas, the way agents read them: each delta names its
 * call by `index`, and a call's `arguments` come as fragments split anywhere, joined in order.
 */

/** One call of an answer, as its deltas built it. */
export interface AssembledCall {
  /** The `index` its deltas named. */
  index: number;
  /** The call's id (its first non-empty one); null when none came. */
  id: string | null;
  /** The tool named (its first non-empty name); null when none came. */
  name: string | null;
  /** The fragments of `arguments` joined in the order they came (an object stringified). */
  arguments: string;
}

/** The result fields tool-call deltas fill. */
export interface ToolCallFields {
  toolCalls?: AssembledCall[];
  argumentsAsObject?: boolean;
}

/** A tool-call delta as routes send it: OpenAI's shape, with the deviations seen in the wild. */
interface ToolCallDelta {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

/**
 * Applies one chunk's `delta.tool_calls` to the calls so far. A delta with no numeric `index` (some
 * OpenAI-compatible servers leave it out) joins the call of its `id`, else a new call when it brings
 * an id, else the last call. `arguments` sent as an object (not the string the API specifies) is
 * stringified and flagged in `argumentsAsObject`.
 */
export function applyToolCallDeltas(result: ToolCallFields, deltas: unknown): void {
  if (!Array.isArray(deltas)) return;
  if (result.toolCalls === undefined) result.toolCalls = [];
  const calls = result.toolCalls;
  for (const raw of deltas) {
    if (typeof raw !== "object" || raw === null) continue;
    const delta = raw as ToolCallDelta;
    const id = typeof delta.id === "string" && delta.id !== "" ? delta.id : null;
    let call: AssembledCall | undefined;
    if (typeof delta.index === "number") {
      const index = delta.index;
      call = calls.find((c) => c.index === index);
      if (!call) {
        call = { index, id: null, name: null, arguments: "" };
        calls.push(call);
      }
    } else {
      call = (id !== null ? calls.find((c) => c.id === id) : undefined) ?? (id === null ? calls.at(-1) : undefined);
      if (!call) {
        call = {
          index: calls.length === 0 ? 0 : Math.max(...calls.map((c) => c.index)) + 1,
          id: null,
          name: null,
          arguments: "",
        };
        calls.push(call);
      }
    }
    if (call.id === null && id !== null) call.id = id;
    const fn = delta.function;
    if (typeof fn !== "object" || fn === null) continue;
    if (call.name === null && typeof fn.name === "string" && fn.name !== "") call.name = fn.name;
    const args = fn.arguments;
    if (typeof args === "string") call.arguments += args;
    else if (typeof args === "object" && args !== null) {
      call.arguments += JSON.stringify(args);
      result.argumentsAsObject = true;
    }
  }
}
