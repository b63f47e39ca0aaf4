// Flags → run settings, once: the one mapping every command that runs, plans or serves a model
// makes (run-config.ts prepares a run from it, make-plan.ts a plan, serve its model at start).
import { resolve } from 'node:path';
import { splitRpcList } from '../shared/remote/rpc-endpoint.js';
import type { ParsedArgs } from './args.js';
import { UsageError } from '../shared/errors.js';
import { SettingsError, validateRunSettings, type RunSettings } from '../shared/settings/run-settings.js';
import { flagValues } from './run-flags.js';

/**
 * The run settings the flags describe: the one mapping from flags to validated settings, which
 * run, bench, sweep, bench-serve, plan, models, pull and serve all make. A flag not given (or
 * not declared by the command) keeps the shared default; a value out of bounds is a UsageError
 * naming the flag.
 */
export function settingsFromFlags(flags: ParsedArgs['flags']): RunSettings {
  const f = flagValues(flags);
  const given = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
  const tracing = f['graph-trace'] === true || f['graph-trace-detail'] === true;
  const asked: Partial<Record<keyof RunSettings, unknown>> = {
    ramBytes: given(f.ram),
    vramBytes: given(f.vram),
    gpu: given(f.gpu),
    enforceRam: f['enforce-ram'] === true,
    ctx: given(f.ctx),
    batch: given(f.batch),
    threads: given(f.threads),
    parallel: f.parallel,
    policy: f.policy,
    prefetchDepth: f['prefetch-depth'],
    expertReadAhead: f['expert-read-ahead'],
    expertWarmStart: f['expert-warm-start'],
    mmap: f.mmap,
    repack: given(f.repack),
    prefault: given(f.prefetch),
    graphTrace: tracing,
    draft: given(f.draft),
    draftMax: f['draft-max'],
    draftMin: f['draft-min'],
    rpc: splitRpcList(f.rpc),
    // The worker may run elsewhere in the tree: paths travel absolute.
    routingTrace: f['routing-trace'] === undefined ? undefined : resolve(f['routing-trace']),
    routingTraceOut: f['routing-trace-out'] === undefined ? undefined : resolve(f['routing-trace-out']),
    expertsUsed: given(f['experts-used']),
    skipColdExperts: given(f['skip-cold-experts']),
  };
  try {
    // Fields left undefined take the shared defaults.
    return validateRunSettings(Object.fromEntries(Object.entries(asked).filter((e) => e[1] !== undefined)));
  } catch (e) {
    if (e instanceof SettingsError) throw new UsageError(`--${flagOf(e.field)} ${e.message.slice(e.field.length + 2)}`);
    throw e;
  }
}

/** The flag a settings field is set by. */
export function flagOf(field: string): string {
  return { enforceRam: 'enforce-ram', ramBytes: 'ram', vramBytes: 'vram', prefetchDepth: 'prefetch-depth', expertReadAhead: 'expert-read-ahead', expertWarmStart: 'expert-warm-start', prefault: 'prefetch', draftMax: 'draft-max', draftMin: 'draft-min', routingTrace: 'routing-trace', routingTraceOut: 'routing-trace-out', expertsUsed: 'experts-used', skipColdExperts: 'skip-cold-experts' }[field] ?? field;
}
