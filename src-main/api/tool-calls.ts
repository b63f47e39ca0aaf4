// Tool calls in generated text, in the Hermes / Qwen2.5 format: `<tool_call>{"name": …,
// "arguments": {…}}</tool_call>` blocks. A block whose JSON does not parse, names a tool the
// request did not declare or has no object of arguments is not a call: it stays in the content,
// as the model wrote it. The stream splitter passes content on as it comes and holds everything
// from the first `<tool_call>` (and a tail that may be the start of one) until the end. Pure.

export const OPEN_TAG = '<tool_call>';
export const CLOSE_TAG = '</tool_call>';

export interface ParsedCall {
  name: string;
  /** JSON text, as OpenAI's function.arguments carries it. */
  arguments: string;
}

export interface ParsedOutput {
  /** The text outside the calls; null when only whitespace is left. */
  content: string | null;
  calls: ParsedCall[];
}

function callOf(inner: string, names: ReadonlySet<string>): ParsedCall | null {
  let v: unknown;
  try {
    v = JSON.parse(inner);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.name !== 'string' || !names.has(o.name)) return null;
  let args = o.arguments ?? o.parameters;
  // Some models write the arguments as a JSON string.
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args) as unknown;
    } catch {
      return null;
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return null;
  return { name: o.name, arguments: JSON.stringify(args) };
}

/**
 * @param names the declared tools
 * @param max at most this many calls are taken (parallel_tool_calls false: 1); later blocks stay content
 */
export function parseToolCalls(text: string, names: ReadonlySet<string>, max = Infinity): ParsedOutput {
  const calls: ParsedCall[] = [];
  let content = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf(OPEN_TAG, at);
    if (open < 0) break;
    const close = text.indexOf(CLOSE_TAG, open + OPEN_TAG.length);
    // An unclosed block counts only at the very end (the model stopped right after the JSON).
    const end = close < 0 ? text.length : close;
    const call = calls.length < max ? callOf(text.slice(open + OPEN_TAG.length, end).trim(), names) : null;
    const next = close < 0 ? text.length : close + CLOSE_TAG.length;
    content += text.slice(at, call ? open : next);
    if (call) calls.push(call);
    at = next;
    if (close < 0) break;
  }
  content += text.slice(at);
  return { content: calls.length > 0 && content.trim() === '' ? null : calls.length > 0 ? content.trim() : content, calls };
}

/** Length of the longest end of `s` that is a proper start of `tag`. */
function partialTail(s: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, s.length); n > 0; n--) if (s.endsWith(tag.slice(0, n))) return n;
  return 0;
}

/** Streaming: content out as it comes, everything from the first `<tool_call>` held for the end. */
export class ToolCallSplitter {
  private pending = '';
  private held: string | null = null;

  /** The content that can go out now. */
  push(text: string): string {
    if (this.held !== null) {
      this.held += text;
      return '';
    }
    const s = this.pending + text;
    const open = s.indexOf(OPEN_TAG);
    if (open >= 0) {
      this.held = s.slice(open);
      this.pending = '';
      return s.slice(0, open);
    }
    const keep = partialTail(s, OPEN_TAG);
    this.pending = s.slice(s.length - keep);
    return s.slice(0, s.length - keep);
  }

  /** At the end: the calls, and the content still to go out (what was held and is not a call). */
  finish(names: ReadonlySet<string>, max = Infinity): { content: string; calls: ParsedCall[] } {
    if (this.held === null) return { content: this.pending, calls: [] };
    const r = parseToolCalls(this.held, names, max);
    return { content: r.content ?? '', calls: r.calls };
  }
}
