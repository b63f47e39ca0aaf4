// The model's own Jinja chat template rendered with tools, tool calls and tool results, which
// llama.cpp's built-in template matcher (applyChatTemplate) cannot do. The template comes from
// the GGUF file, so it is untrusted: it is interpreted here, in the worker, never in the API or
// main process, by @huggingface/jinja (a sandboxed interpreter: no attribute access to the host's
// objects, no I/O); its output is bounded and any failure is a ChatTemplateError the caller turns
// into a 400. The interpreter has no bound of its own on work: the worker runs this renderer in a
// process of its own under TEMPLATE_RENDER_LIMITS (template-render.ts, template-render-main.ts).
// Pure apart from the interpreter.
import { Template } from '@huggingface/jinja';
import type { ChatMessage, ToolSpec } from '../shared/worker-protocol.js';
import { templateDate } from './template-date.js';

/** A rendered prompt longer than this is refused: no context holds it, and it would only be tokenized to be refused. */
export const MAX_RENDERED_CHARS = 8 * 1024 * 1024;
/** A template this long is refused before it is parsed. */
export const MAX_TEMPLATE_CHARS = 1024 * 1024;

/**
 * The bounds of one render. A template is a program from the model file: a loop of a hundred
 * million turns, or nested loops that print nothing, would otherwise hold the worker for ever.
 * A real one is small work: the tool template renders 300 turns with 20 tools in about 12,000
 * steps and 50 ms, so the step budget leaves it some fifteen times that and still ends a
 * hostile loop in a second or two. Steps are the interpreter's evaluations and loop turns (the
 * same count on every machine); the deadline also ends one slow built-in call, and the heap one that builds a huge
 * value (the render runs in a process of its own, so that heap is not the worker's).
 */
export const TEMPLATE_RENDER_LIMITS = {
  maxSteps: 200_000,
  timeoutMs: 5_000,
  // The rendered prompt is at most MAX_RENDERED_CHARS (16 MiB as UTF-16); the renderer shares
  // the worker's cap, so its heap stays a small multiple of that.
  heapMb: 64,
} as const;

export type TemplateRenderLimits = { readonly [K in keyof typeof TEMPLATE_RENDER_LIMITS]: number };

export class ChatTemplateError extends Error {}

export interface TemplateTokens {
  bos: string;
  eos: string;
}

/** A message as Hugging Face chat templates read it (arguments as an object: templates `tojson` them). */
function hfMessage(m: ChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role, content: m.content };
  if (m.toolCalls && m.toolCalls.length > 0) {
    out.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: argumentsValue(c.arguments) } }));
  }
  if (m.toolCallId !== undefined) out.tool_call_id = m.toolCallId;
  if (m.reasoningContent !== undefined) out.reasoning_content = m.reasoningContent;
  return out;
}

/** The arguments as a value when they are JSON (as OpenAI clients send them), else the text as is. */
function argumentsValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const hfTool = (t: ToolSpec) => ({ type: 'function', function: { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), parameters: t.parameters ?? { type: 'object', properties: {} } } });

/** What the render process is sent and what it answers: one shape for both sides. */
export interface TemplateJob {
  template: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  tokens: TemplateTokens;
  /** The opening of the assistant's turn at the end (false: llama-server's /apply-template may ask for the turns alone). */
  addGenerationPrompt?: boolean;
  maxSteps: number;
}

export type TemplateJobResult = { ok: true; text: string } | { ok: false; message: string };

export function renderToolChat(template: string, messages: ChatMessage[], tools: ToolSpec[], tokens: TemplateTokens, addGenerationPrompt = true): string {
  if (template.length > MAX_TEMPLATE_CHARS) throw new ChatTemplateError(`the chat template is longer than ${MAX_TEMPLATE_CHARS} characters`);
  let text: unknown;
  try {
    const t = new Template(template);
    text = t.render({
      messages: messages.map(hfMessage),
      // Templates test `if tools`: none given renders as a template without tools would.
      ...(tools.length > 0 ? { tools: tools.map(hfTool) } : {}),
      add_generation_prompt: addGenerationPrompt,
      bos_token: tokens.bos,
      eos_token: tokens.eos,
      // Today's date, as llama.cpp gives it to every template (Llama 3.x prints it in the system turn).
      ...templateDate(new Date()),
    });
  } catch (e) {
    throw new ChatTemplateError(`the chat template cannot be rendered: ${e instanceof Error ? e.message.slice(0, 500) : String(e).slice(0, 500)}`);
  }
  if (typeof text !== 'string') throw new ChatTemplateError('the chat template did not render text');
  if (text.length > MAX_RENDERED_CHARS) throw new ChatTemplateError(`the chat template rendered more than ${MAX_RENDERED_CHARS} characters`);
  return text;
}

/** Whether a request needs the Jinja path: tools, or a turn the built-in matcher would misrender. */
export function needsToolRendering(messages: ChatMessage[] | undefined, tools: ToolSpec[] | undefined): boolean {
  if (tools !== undefined) return true;
  return (messages ?? []).some((m) => m.role === 'tool' || (m.toolCalls !== undefined && m.toolCalls.length > 0));
}
