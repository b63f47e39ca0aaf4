// Facts about this machine that defaults depend on.
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * Physical CPU cores (distinct core ids per package), from sysfs; the logical CPU count where
 * the topology cannot be read. Compute threads beyond the physical cores only contend.
 */
export function physicalCores(): number {
  try {
    const cpus = readdirSync('/sys/devices/system/cpu').filter((d) => /^cpu\d+$/.test(d));
    const cores = new Set<string>();
    for (const c of cpus) {
      const base = `/sys/devices/system/cpu/${c}/topology`;
      const pkg = readFileSync(`${base}/physical_package_id`, 'utf8').trim();
      const core = readFileSync(`${base}/core_id`, 'utf8').trim();
      cores.add(`${pkg}:${core}`);
    }
    if (cores.size > 0) return Math.min(cores.size, availableParallelism());
  } catch {
    /* no sysfs topology (not Linux, or hidden): fall back */
  }
  return Math.max(1, availableParallelism());
}
