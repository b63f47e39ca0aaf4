// One rule of where weights live: token_embd beside a separate output head is read one row per
// token (get_rows), so it is never held resident (the kernel evicts its untouched pages first)
// and never counted whole in what a token reads. Tied (no output.* tensor), it is the output
// head too and is read whole every token. The plan, the MoE view, the report's summary and the
// worker's stream schedule all ask this module.

export const TOKEN_EMBD = 'token_embd.weight';

/** Whether token_embd is read by rows: it is there, and so is a separate output head. */
export function embdReadByRows(names: Iterable<string>): boolean {
  let embd = false;
  let head = false;
  for (const n of names) {
    if (n === TOKEN_EMBD) embd = true;
    else if (n.startsWith('output.')) head = true;
  }
  return embd && head;
}

/** token_embd's bytes when it is read by rows, else 0. */
export function embdRowReadBytes<T extends { readonly name: string }>(tensors: readonly T[], bytes: (t: T) => number): number {
  const embd = tensors.find((t) => t.name === TOKEN_EMBD);
  return embd && embdReadByRows(tensors.map((t) => t.name)) ? bytes(embd) : 0;
}
