// Exit 0 when a python3 on the PATH has the suite's modules (.ci/run installs them otherwise).
import { suitePython, PY_MODULES } from './python.mjs';
import { spawnSync } from 'node:child_process';
process.exit(spawnSync(suitePython(), ['-c', `import ${Object.keys(PY_MODULES).join(', ')}`]).status === 0 ? 0 : 1);
