// llama.cpp's own programs (llama-bench, rpc-server) from the pinned build in the cache, built
// on first use: the same source and flags as the library the addon links.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './paths.js';

/** The tool's path; `build` says it is being built (once, minutes on a small machine). */
export function llamaTool(target: string, say: (line: string) => void = () => {}): string {
  const script = join(packageRoot(), 'scripts', 'llama-cpp.mjs');
  const { build } = JSON.parse(execFileSync(process.execPath, [script, 'paths'], { encoding: 'utf8' })) as { build: string };
  const bin = join(build, 'bin', target);
  if (!existsSync(bin)) {
    say(`building ${target} from the pinned llama.cpp (once) …`);
    execFileSync(process.execPath, [script, 'build', target], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return bin;
}
