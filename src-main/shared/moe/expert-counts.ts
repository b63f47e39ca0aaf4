// Experts per MoE layer and experts a token uses, as the model's loaded metadata (llama.cpp's
// `<arch>.expert_count`, `<arch>.expert_used_count`, strings) gives them. Pure.

export function expertCountsOf(metadata: Readonly<Record<string, string>>): { experts: number; used: number } | null {
  const arch = metadata['general.architecture'] ?? '';
  const experts = Number(metadata[`${arch}.expert_count`] ?? 0);
  const used = Number(metadata[`${arch}.expert_used_count`] ?? 0);
  return Number.isInteger(experts) && experts > 1 && Number.isInteger(used) && used > 0 ? { experts, used } : null;
}
