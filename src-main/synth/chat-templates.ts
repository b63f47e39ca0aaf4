// Chat templates for vocab files that carry none, so `--chat` works. Each is the well-known
// template of its family, written so llama.cpp's llm_chat_detect_template recognises it.
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export const LLAMA2_TEMPLATE =
  "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = messages[0]['content'] %}" +
  '{% else %}{% set loop_messages = messages %}{% set system_message = false %}{% endif %}' +
  '{% for message in loop_messages %}' +
  "{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}" +
  "{% else %}{% set content = message['content'] %}{% endif %}" +
  "{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}" +
  "{% elif message['role'] == 'assistant' %}{{ ' ' + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}";

export const LLAMA3_TEMPLATE =
  '{{ bos_token }}{% for message in messages %}' +
  "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";

/** The template to add for a vocab file that has no tokenizer.chat_template. */
export function fallbackChatTemplate(vocab: string): string {
  if (vocab === 'llama-spm') return LLAMA2_TEMPLATE;
  if (vocab === 'llama-bpe') return LLAMA3_TEMPLATE;
  return CHATML_TEMPLATE;
}

/**
 * ChatML with tools, in the Hermes / Qwen2.5 format (compact, without Qwen's default system
 * prompt, so that without tools it renders exactly as CHATML_TEMPLATE and llama.cpp's built-in
 * matcher, which takes any template with `<|im_start|>` for ChatML, renders plain chats the same):
 * - `tools` go into the system turn inside `<tools></tools>`, one JSON object per line
 *   ({"type": "function", "function": {...}}), with the instruction to answer calls as
 *   `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`;
 * - an assistant turn with `tool_calls` writes each call as such a block after its content;
 * - consecutive `tool` messages go into one user turn, each inside `<tool_response></tool_response>`.
 * Jinja string escapes (\n) are the template's own: String.raw keeps them for the interpreter.
 */
export const TOOLS_CHATML_TEMPLATE = [
  String.raw`{%- if tools %}{{- '<|im_start|>system\n' }}`,
  String.raw`{%- if messages[0].role == 'system' %}{{- messages[0].content + '\n\n' }}{%- endif %}`,
  String.raw`{{- '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>' }}`,
  String.raw`{%- for tool in tools %}{{- '\n' + (tool | tojson) }}{%- endfor %}`,
  String.raw`{{- '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' }}`,
  String.raw`{%- elif messages[0].role == 'system' %}{{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}{%- endif %}`,
  String.raw`{%- for message in messages %}`,
  String.raw`{%- if message.role == 'system' and loop.first %}`,
  String.raw`{%- elif message.role == 'tool' %}`,
  String.raw`{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}`,
  String.raw`{{- '\n<tool_response>\n' + message.content + '\n</tool_response>' }}`,
  String.raw`{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}{{- '<|im_end|>\n' }}{%- endif %}`,
  String.raw`{%- elif message.role == 'assistant' and message.tool_calls %}{{- '<|im_start|>assistant' }}`,
  String.raw`{%- if message.content %}{{- '\n' + message.content }}{%- endif %}`,
  String.raw`{%- for call in message.tool_calls %}{{- '\n<tool_call>\n{"name": "' + call.function.name + '", "arguments": ' + (call.function.arguments | tojson) + '}\n</tool_call>' }}{%- endfor %}`,
  String.raw`{{- '<|im_end|>\n' }}`,
  String.raw`{%- else %}{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}{%- endif %}`,
  String.raw`{%- endfor %}`,
  String.raw`{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}`,
].join('');
