// Embedding answers: each vector scaled to unit length (as llama-server's /v1/embeddings and
// Ollama's /api/embed give them), as float arrays or as OpenAI's base64 of little-endian
// float32, in OpenAI's list shape or Ollama's. Pure.

/** `v` divided by its Euclidean norm (a zero vector stays zero). */
export function normalized(v: readonly number[]): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  return norm > 0 ? v.map((x) => x / norm) : v.map(() => 0);
}

export function base64Float32(v: readonly number[]): string {
  const f = new Float32Array(v);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64');
}

export function openAiEmbeddings(model: string, vectors: number[][], encoding: 'float' | 'base64', tokens: number): object {
  return {
    object: 'list',
    data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: encoding === 'base64' ? base64Float32(v) : v })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

export function ollamaEmbeddings(model: string, vectors: number[][], tokens: number, totalMs: number): object {
  return { model, embeddings: vectors, total_duration: Math.round(totalMs * 1e6), load_duration: 0, prompt_eval_count: tokens };
}
