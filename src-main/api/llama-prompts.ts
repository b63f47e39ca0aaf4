// The prompt forms llama-server's /completion takes beyond OpenAI's (its tokenize_input_prompts):
// token ids and strings mixed in one sequence (`[1, 2, "text", 3]`: each string tokenized where
// it stands, BOS only before a leading string), and in a batch, besides strings and id arrays,
// such mixed sequences and `{"prompt_string": "…"}` objects (its multimodal prompt form, here
// without media). Each becomes a string or ids, the forms /v1/completions validates; anything
// else is left as it is for that validation to refuse.
import { mixedTokens } from '../shared/mixed-prompt.js';

/** `tokenize(text, first)`: the served model's ids of the text, with BOS when `first`. */
export type PromptTokenizer = (text: string, first: boolean) => Promise<number[]>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isMixed = (v: unknown[]): boolean => v.some((x) => typeof x === 'number') && v.some((x) => typeof x === 'string') && v.every((x) => typeof x === 'number' || typeof x === 'string');

/** One mixed sequence as ids: mixedTokens' rule (where BOS goes), with the texts tokenized first. */
async function sequence(v: (number | string)[], tokenize: PromptTokenizer): Promise<number[]> {
  const asked: Promise<number[]>[] = [];
  mixedTokens(v, (text, first) => (asked.push(tokenize(text, first)), []));
  const ids = await Promise.all(asked);
  let k = 0;
  return mixedTokens(v, () => ids[k++] ?? []);
}

export async function llamaPrompt(prompt: unknown, tokenize: PromptTokenizer): Promise<unknown> {
  if (!Array.isArray(prompt)) return prompt;
  if (isMixed(prompt)) return sequence(prompt as (number | string)[], tokenize);
  if (prompt.every((x) => typeof x === 'number')) return prompt;
  return Promise.all(
    prompt.map(async (x: unknown) => {
      if (Array.isArray(x) && isMixed(x)) return sequence(x as (number | string)[], tokenize);
      if (isObject(x) && typeof x.prompt_string === 'string' && x.multimodal_data === undefined) return x.prompt_string;
      return x;
    }),
  );
}
