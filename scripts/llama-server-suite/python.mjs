// The Python the suite runs with: PYTHON if set, else the first `python3` on the PATH that has
// the suite's modules (a version manager's shim may come before the system one that the
// distribution's packages install into), else plain `python3` (whose missing modules are then
// reported by name).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const PY_MODULES = { pytest: 'python3-pytest', requests: 'python3-requests', wget: 'python3-wget', filelock: 'python3-filelock' };

const hasModules = (python) => spawnSync(python, ['-c', `import ${Object.keys(PY_MODULES).join(', ')}`]).status === 0;

export function suitePython() {
  if (process.env.PYTHON) return process.env.PYTHON;
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const p = join(dir, 'python3');
    if (existsSync(p) && hasModules(p)) return p;
  }
  return 'python3';
}
