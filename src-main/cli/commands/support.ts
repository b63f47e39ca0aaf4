// `ramforge support [--json]`: architectures and tensor types, and what we have evidence for.
import type { CommandSpec } from '../args.js';
import { EXIT } from '../../shared/errors.js';
import { architectureCapabilities, tensorTypeCapabilities } from '../../shared/capabilities.js';

const LEGEND =
  'Evidence: tested = our own tests; native-tests = run on synthetic models by the native test suite; ' +
  'generic = the generic GGUF path (any well-formed file), not tested per architecture; delegated = llama.cpp implements it, no evidence of ours.';

export const command: CommandSpec = {
  name: 'support',
  summary: 'list architectures and tensor types, and the evidence behind each',
  positionals: [],
  flags: [{ name: 'json', type: 'boolean', description: 'print as JSON (docs/cli-json.md, "support")' }],
  async run(args) {
    const archs = architectureCapabilities();
    const types = tensorTypeCapabilities();
    if (args.flags.json) {
      process.stdout.write(JSON.stringify({ schemaVersion: 1, architectures: archs, tensorTypes: types }, null, 2) + '\n');
      return EXIT.ok;
    }
    const out: string[] = ['Architectures with our own evidence'];
    const row = (c: string[], w: number[]): string => '  ' + c.map((x, i) => x.padEnd(w[i] ?? 0)).join('  ').trimEnd();
    const aw = [10, 8, 8, 13, 13];
    out.push(row(['arch', 'inspect', 'plan', 'run', 'stream'], aw));
    for (const a of archs.filter((x) => x.run !== 'delegated')) out.push(row([a.name, a.inspect, a.plan, a.run, a.stream], aw));
    const delegated = archs.filter((x) => x.run === 'delegated').map((a) => a.name);
    out.push('', `Delegated to llama.cpp (${delegated.length}; inspect/plan generic, run/stream without our evidence):`);
    let line = ' ';
    for (const n of delegated) {
      if (line.length + n.length > 96) {
        out.push(line);
        line = ' ';
      }
      line += ` ${n}`;
    }
    out.push(line, '', 'Tensor types');
    const tw = [8, 4, 6, 6, 6, 6, 8, 5];
    out.push(row(['type', 'id', 'block', 'bytes', 'bpw', 'synth', 'inspect', 'plan'], tw));
    for (const t of types) {
      out.push(row([t.name, String(t.id), String(t.blockSize), String(t.typeSize), String(t.bitsPerWeight), t.synth ? 'yes' : 'no', t.inspect ? 'yes' : 'no', t.plan ? 'yes' : 'no'], tw));
    }
    out.push('', LEGEND);
    process.stdout.write(out.join('\n') + '\n');
    return EXIT.ok;
  },
};
