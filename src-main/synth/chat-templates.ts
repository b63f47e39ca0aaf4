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
