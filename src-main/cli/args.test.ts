import { describe, it, expect } from 'vitest';
import { parseArgs, wantsHelp, type CommandSpec } from './args.js';
import { UsageError } from '../shared/errors.js';

const cmd: Pick<CommandSpec, 'name' | 'flags' | 'positionals'> = {
  name: 'inspect',
  positionals: [{ name: 'model', description: 'a file', required: true }],
  flags: [
    { name: 'json', type: 'boolean', description: 'JSON' },
    { name: 'ctx', type: 'int', description: 'context' },
    { name: 'out', type: 'string', short: 'o', description: 'output' },
  ],
};

describe('parseArgs', () => {
  it('reads a model file named -weird.gguf as a flag without --, and as the file after --', () => {
    expect(() => parseArgs(['-weird.gguf', '--json'], cmd)).toThrow(UsageError);
    const a = parseArgs(['--json', '--ctx', '64', '--', '-weird.gguf'], cmd);
    expect(a.positionals).toEqual(['-weird.gguf']);
    expect(a.flags).toMatchObject({ json: true, ctx: 64 });
  });

  it('takes every word after -- as a positional, flags included', () => {
    const variadic = { ...cmd, positionals: [{ name: 'files', description: 'files', variadic: true }] };
    expect(parseArgs(['--', '--json', '-o', '--'], variadic).positionals).toEqual(['--json', '-o', '--']);
    expect(parseArgs(['--json', '--'], variadic)).toMatchObject({ positionals: [], flags: { json: true } });
  });

  it('still counts positionals after -- against the command (one model only)', () => {
    expect(() => parseArgs(['--', '-a.gguf', '-b.gguf'], cmd)).toThrow(/unexpected argument '-b.gguf'/);
    expect(() => parseArgs(['--json', '--'], cmd)).toThrow(/needs MODEL/);
  });

  it('a flag value that begins with - is still the value', () => {
    expect(parseArgs(['--out', '-x.json', 'm.gguf'], cmd).flags.out).toBe('-x.json');
  });
});

describe('llama.cpp spellings', () => {
  const withAliases: Pick<CommandSpec, 'name' | 'flags' | 'positionals'> = {
    name: 'run',
    positionals: [{ name: 'model', description: 'a file', required: true }],
    flags: [{ name: 'temperature', aliases: ['temp'], type: 'number', description: 'temperature' }],
  };
  it('--temp sets --temperature, as llama-cli takes it; an unknown spelling is still refused', () => {
    expect(parseArgs(['m.gguf', '--temp', '0'], withAliases).flags).toMatchObject({ temperature: 0 });
    expect(parseArgs(['m.gguf', '--temp=0.5'], withAliases).flags).toMatchObject({ temperature: 0.5 });
    expect(() => parseArgs(['m.gguf', '--tmp', '0'], withAliases)).toThrow(/unknown flag --tmp/);
  });
});

describe('wantsHelp', () => {
  it('sees -h/--help only before --', () => {
    expect(wantsHelp(['m.gguf', '--help'])).toBe(true);
    expect(wantsHelp(['-h'])).toBe(true);
    expect(wantsHelp(['--', '--help'])).toBe(false);
    expect(wantsHelp(['--json', '--', '-h'])).toBe(false);
  });
});
