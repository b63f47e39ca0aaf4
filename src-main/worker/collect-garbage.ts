// A full garbage collection on demand, without a command-line flag (the worker is started by
// fork, the supervisor and Electron's utility process alike). The memory a run plans against is
// measured once after load: the parse and load leave megabytes of dead JS objects that the
// collector would otherwise free at some later moment — sometimes before the measurement,
// sometimes after, a swing of ~15 MiB in what the schedule thinks it has.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null = null;

export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
