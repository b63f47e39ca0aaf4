// Every command draws the shared flags from the one table (run-flags.ts FLAGS): a flag the table
// holds is declared nowhere else with another type, default or help text. The few that mean
// something else in one command are listed here with the reason.
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandSpec } from './args.js';
import { FLAGS } from './run-flags.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'commands');

/** `command: flag` → why that command's flag of a table name is its own. */
const OWN: Record<string, string> = {
  'pull: force': 'download even when the plan says the model cannot run (not: run below the minimum)',
  'rpc-server: ram': 'the memory the node offers other machines, not a plan budget',
  'rpc-server: threads': "the node's compute threads, llama.cpp's default when not given",
  'rpc-server: enforce-ram': 'holds the server (not a worker) to --ram; clients see the cap as its memory',
  'rpc-server: enforce-timeout': 'a server runs until stopped: no default limit',
  'rpc-server: memory-report': 'printed when the server stops, not after a run',
  'synth: seed': "the random weights' seed, not sampling's",
  'synth: experts-used': "the experts per token the written model declares, not a run's lossy override",
  'sweep-caps: seed': "the sweep's seed (which cases), not sampling's",
  'bench-binding: threads': 'both runs of the comparison use the same fixed count (default 2)',
  // serve's sampling flags are the server's defaults for requests that leave a field unset
  // (llama-server's server-wide options): no default of their own, each API's applies.
  ...Object.fromEntries(
    ['temperature', 'top-k', 'top-p', 'min-p', 'repeat-penalty', 'seed', 'max-tokens'].map((f) => [`serve: ${f}`, "the default for requests that leave it unset, none of its own (each API's applies)"]),
  ),
};

describe('the flag table', () => {
  it('is where every command that declares a shared flag takes it from', async () => {
    const commands: CommandSpec[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.includes('.test'))) {
      const m = (await import(join(dir, f))) as { command?: CommandSpec };
      if (m.command) commands.push(m.command);
    }
    expect(commands.map((c) => c.name)).toEqual(expect.arrayContaining(['run', 'plan', 'serve', 'bench', 'models', 'pull', 'sweep', 'bench-serve']));
    const differing: string[] = [];
    for (const c of commands)
      for (const f of c.flags) {
        const t = (FLAGS as Record<string, unknown>)[f.name];
        if (t !== undefined && JSON.stringify(t) !== JSON.stringify(f) && !(`${c.name}: ${f.name}` in OWN)) differing.push(`${c.name}: --${f.name}`);
      }
    expect(differing).toEqual([]);
  });

  it('names each entry by its key and gives it a help text', () => {
    for (const [k, f] of Object.entries(FLAGS)) {
      expect(f.name).toBe(k);
      expect(f.description.length).toBeGreaterThan(10);
    }
  });
});
