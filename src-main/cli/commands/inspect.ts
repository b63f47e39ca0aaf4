// `ramforge inspect MODEL [--json]`: what a GGUF file (or split set, or directory holding one
// model) holds, from its header alone. Malformed files exit 2 with the problem and its offset.
import type { CommandSpec } from '../args.js';
import { EXIT, UsageError } from '../../shared/errors.js';
import { openGgufModel, type OpenedModel } from '../../node/gguf-file.js';
import { GgufError } from '../../shared/gguf/reader-errors.js';
import { inspectReport } from '../../shared/gguf/inspect-report.js';
import { formatInspect } from '../../shared/gguf/inspect-format.js';
import { isModelUrl } from '../../shared/remote/model-url.js';
import { openRemoteModelOrExit } from '../remote-model.js';

/** Opens MODEL for a command; a bad file becomes a usage error (exit 2) naming the problem. */
export async function openModelOrExit2(path: string): Promise<OpenedModel> {
  try {
    return await openGgufModel(path);
  } catch (e) {
    if (e instanceof GgufError) throw new UsageError(e.message);
    throw e;
  }
}

export const command: CommandSpec = {
  name: 'inspect',
  summary: 'show what a GGUF file holds (architecture, layers, tensors, metadata), reading only its header',
  positionals: [{ name: 'model', description: 'a .gguf file, any shard of a split set, a directory holding one model, or an http(s) URL (its header is read with range requests)', required: true }],
  flags: [{ name: 'json', type: 'boolean', description: 'print the complete JSON document (docs/cli-json.md, "inspect")' }],
  details:
    'Exit codes: 0 ok; 2 missing path (or nothing at the URL), not a GGUF file, malformed header (message names the byte offset), or a directory holding more than one model; 1 network failures and servers without range support.',
  async run(args) {
    const input = args.positionals[0] as string;
    const m = isModelUrl(input) ? await openRemoteModelOrExit(input) : await openModelOrExit2(input);
    if (args.flags.json) process.stdout.write(JSON.stringify(inspectReport(input, m.shards, m.view), null, 2) + '\n');
    else process.stdout.write(formatInspect(m.shards, m.view));
    return EXIT.ok;
  },
};
