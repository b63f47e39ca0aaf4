// llama-server's mixed prompts: token ids and texts in one sequence (`[12, 34, "text", 56]`),
// each text tokenized where it stands, the vocabulary's special tokens (BOS) added only when
// the sequence begins with a text, as llama-server's tokenize_mixed does. Pure: the tokenizer
// is handed in.

/** `tokenize(text, first)`: the text's ids, with the special tokens added when `first`. */
export function mixedTokens(items: readonly (number | string)[], tokenize: (text: string, first: boolean) => ArrayLike<number>): number[] {
  const out: number[] = [];
  items.forEach((item, i) => {
    if (typeof item === 'number') out.push(item);
    else out.push(...Array.from(tokenize(item, i === 0)));
  });
  return out;
}
