// A small, strict flag parser: every command declares its flags, so `--help` lists them all
// and an unknown flag is a usage error (exit 2) instead of being silently ignored.
import { UsageError } from '../shared/errors.js';
import { parseSize } from '../shared/size.js';
import type { Limit } from '../shared/settings/run-settings.js';

export type FlagType = 'string' | 'int' | 'number' | 'boolean' | 'size' | 'list';

export interface FlagSpec {
  readonly name: string;
  readonly type: FlagType;
  readonly description: string;
  readonly short?: string;
  /** Other long names it answers to: llama.cpp's spellings (--temp, --ctx-size), so its users' commands run. */
  readonly aliases?: readonly string[];
  readonly valueName?: string;
  readonly default?: string | number | boolean;
  /** May be given more than once; values are collected in order. */
  readonly repeatable?: boolean;
  /** Bounds of an int, number or size value (the settings module's LIMITS): outside is exit 2. */
  readonly range?: Limit;
}

export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
  readonly variadic?: boolean;
}

export type FlagValue = string | number | boolean | string[];

/** A flag's value as the parser gives it for its spec: repeatable and list flags are strings, numbers are numbers. */
export type FlagValueOf<S> = S extends { readonly repeatable: true }
  ? string[]
  : S extends { readonly type: 'boolean' }
    ? boolean
    : S extends { readonly type: 'string' }
      ? string
      : S extends { readonly type: 'list' }
        ? string[]
        : number;

/** Parsed flags typed by their specs: a flag with a default always has a value, others may be undefined. */
export type TypedFlags<S extends readonly FlagSpec[]> = {
  readonly [E in S[number] as E['name']]: E extends { readonly default: unknown } ? FlagValueOf<E> : FlagValueOf<E> | undefined;
};

/** A command's own flags read with their specs' types (the parser checked each value against its spec). */
export function typedFlags<const S extends readonly FlagSpec[]>(flags: Readonly<Record<string, FlagValue | undefined>>, _specs: S): TypedFlags<S> {
  return flags as unknown as TypedFlags<S>;
}

export interface ParsedArgs {
  readonly positionals: string[];
  readonly flags: Record<string, FlagValue | undefined>;
}

export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly positionals: readonly PositionalSpec[];
  readonly flags: readonly FlagSpec[];
  /** Extra help text: examples, notes. */
  readonly details?: string;
  run(args: ParsedArgs): Promise<number>;
}

function convert(spec: FlagSpec, raw: string): FlagValue {
  const v = convertType(spec, raw);
  const r = spec.range;
  if (r && typeof v === 'number' && !(v >= r.min && v <= r.max)) throw new UsageError(`--${spec.name} must be ${r.min}..${r.max} (got ${raw})`);
  return v;
}

function convertType(spec: FlagSpec, raw: string): FlagValue {
  switch (spec.type) {
    case 'string':
      return raw;
    case 'list':
      return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
    case 'int': {
      if (!/^-?\d+$/.test(raw)) throw new UsageError(`--${spec.name} expects an integer, got '${raw}'`);
      return Number.parseInt(raw, 10);
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${spec.name} expects a number, got '${raw}'`);
      return n;
    }
    case 'size': {
      try {
        return parseSize(raw);
      } catch (e) {
        throw new UsageError(`--${spec.name}: ${(e as Error).message}`);
      }
    }
    case 'boolean':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw new UsageError(`--${spec.name} is a switch; got value '${raw}'`);
  }
}

/**
 * Asked for help: `-h` or `--help` before any `--` (after `--` every word is an argument, so a
 * model file named `--help` or `-h` can still be given).
 */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const flags = end < 0 ? argv : argv.slice(0, end);
  return flags.includes('--help') || flags.includes('-h');
}

/** `--` ends the flags: every word after it is a positional, even one that begins with `-`. */
export function parseArgs(argv: readonly string[], cmd: Pick<CommandSpec, 'name' | 'flags' | 'positionals'>): ParsedArgs {
  const byName = new Map(cmd.flags.flatMap((f) => [f.name, ...(f.aliases ?? [])].map((n) => [n, f] as const)));
  const byShort = new Map(cmd.flags.filter((f) => f.short).map((f) => [f.short as string, f]));
  const flags: Record<string, FlagValue | undefined> = {};
  const positionals: string[] = [];
  // A list's default is written as its text; it is parsed like a given value, so a list flag is always a list.
  for (const f of cmd.flags) if (f.default !== undefined) flags[f.name] = f.type === 'list' && typeof f.default === 'string' ? convert(f, f.default) : f.default;

  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let spec: FlagSpec | undefined;
    let inline: string | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      inline = eq >= 0 ? a.slice(eq + 1) : undefined;
      spec = byName.get(name);
      if (!spec && name.startsWith('no-') && byName.get(name.slice(3))?.type === 'boolean' && inline === undefined) {
        flags[name.slice(3)] = false;
        continue;
      }
      if (!spec) throw new UsageError(`unknown flag --${name} for '${cmd.name}' (see 'ramforge ${cmd.name} --help')`);
    } else if (a.startsWith('-') && a.length > 1 && !/^-\d/.test(a)) {
      spec = byShort.get(a.slice(1));
      if (!spec) throw new UsageError(`unknown flag ${a} for '${cmd.name}' (see 'ramforge ${cmd.name} --help')`);
    } else {
      positionals.push(a);
      continue;
    }
    let value: FlagValue;
    if (spec.type === 'boolean') {
      value = inline === undefined ? true : convert(spec, inline);
    } else {
      const raw = inline ?? argv[++i];
      if (raw === undefined) throw new UsageError(`--${spec.name} needs a value`);
      value = convert(spec, raw);
    }
    if (spec.repeatable) {
      const prev = flags[spec.name];
      const list = Array.isArray(prev) ? prev : [];
      flags[spec.name] = [...list, ...(Array.isArray(value) ? value : [String(value)])];
    } else {
      flags[spec.name] = value;
    }
  }

  const required = cmd.positionals.filter((p) => p.required);
  if (positionals.length < required.length) {
    const missing = required[positionals.length] as PositionalSpec;
    throw new UsageError(`'${cmd.name}' needs ${missing.name.toUpperCase()} (see 'ramforge ${cmd.name} --help')`);
  }
  const variadic = cmd.positionals.some((p) => p.variadic);
  if (!variadic && positionals.length > cmd.positionals.length) {
    throw new UsageError(`unexpected argument '${positionals[cmd.positionals.length]}' for '${cmd.name}'`);
  }
  return { positionals, flags };
}

export function formatHelp(cmd: CommandSpec): string {
  const pos = cmd.positionals.map((p) => (p.required ? p.name.toUpperCase() : `[${p.name.toUpperCase()}]`) + (p.variadic ? '...' : '')).join(' ');
  const lines = [`Usage: ramforge ${cmd.name}${pos ? ' ' + pos : ''} [flags]`, '', cmd.summary, ''];
  if (cmd.positionals.length) {
    lines.push('Arguments:');
    for (const p of cmd.positionals) lines.push(`  ${p.name.toUpperCase().padEnd(28)}${p.description}`);
    lines.push('');
  }
  lines.push('Flags:');
  const rows = cmd.flags.map((f) => {
    const v = f.type === 'boolean' ? '' : ` ${f.valueName ?? (f.type === 'size' ? 'SIZE' : f.type === 'int' || f.type === 'number' ? 'N' : 'VALUE')}`;
    const left = `  ${f.short ? `-${f.short}, ` : ''}--${f.name}${v}`;
    const def = f.default !== undefined && f.type !== 'boolean' ? ` (default ${String(f.default)})` : '';
    const also = f.aliases?.length ? ` (also ${f.aliases.map((a) => `--${a}`).join(', ')})` : '';
    return `${left.padEnd(30)}${f.description}${def}${also}`;
  });
  lines.push(...rows, `  ${'-h, --help'.padEnd(28)}show this help`);
  if (cmd.details) lines.push('', cmd.details.trimEnd());
  return lines.join('\n') + '\n';
}
