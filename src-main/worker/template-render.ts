// The model's chat template rendered with a bound on its work, in a short-lived process of its
// own: a step budget (counted there), a heap of its own (a template that builds a huge value
// ends that process, not the worker: V8 cannot recover from running out of heap, and a worker
// thread's heap limit does not reliably stop one large allocation either) and a deadline at
// which the process is killed. The worker and its event loop carry on meanwhile; whatever bound
// a template breaks, the caller gets a ChatTemplateError (an API 400), never a hung or dead worker.
import { fork } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../node/paths.js';
import { ChatTemplateError, TEMPLATE_RENDER_LIMITS, type TemplateJob, type TemplateJobResult, type TemplateRenderLimits } from './tool-template.js';

export function templateRenderScript(): string {
  const p = join(packageRoot(), 'out', 'cli', 'template-render.mjs');
  if (!existsSync(p)) throw new Error(`the template renderer's bundle is missing (${p}): run 'npm run build:cli'`);
  return p;
}

function isResult(m: unknown): m is TemplateJobResult {
  const r = m as Partial<{ ok: boolean; text: unknown; message: unknown }> | null;
  return typeof r === 'object' && r !== null && (r.ok === true ? typeof r.text === 'string' : typeof r.message === 'string');
}

/** How the render process ended without an answer: out of heap (V8 aborts), or otherwise. */
function endedError(code: number | null, signal: NodeJS.Signals | null, limits: TemplateRenderLimits): ChatTemplateError {
  if (signal === 'SIGABRT' || code === 134) return new ChatTemplateError(`the chat template needed more than ${limits.heapMb} MiB to render`);
  return new ChatTemplateError(`the chat template renderer ended without an answer (${signal ?? `exit code ${code}`})`);
}

/** renderToolChat, bounded by `limits`; rejects with a ChatTemplateError whatever bound is broken. */
export function renderToolChatBounded(job: Omit<TemplateJob, 'maxSteps'>, limits: TemplateRenderLimits = TEMPLATE_RENDER_LIMITS, script = templateRenderScript()): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    // Under Electron (the app's utility process) the same binary runs as plain Node.
    const env = { ...process.env, ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}) };
    const child = fork(script, [], { env, execArgv: [`--max-old-space-size=${limits.heapMb}`], stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'advanced' });
    // The render process shares the worker's memory cgroup: should a template's allocation
    // reach the cap, the kernel's OOM killer must take the renderer, never the worker.
    if (child.pid !== undefined) {
      try {
        writeFileSync(`/proc/${child.pid}/oom_score_adj`, '1000');
      } catch {
        // Not Linux, or /proc not writable: the heap limit is then the only bound on its memory.
      }
    }
    let settled = false;
    const settle = (end: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      end();
      child.kill('SIGKILL');
    };
    const seconds = limits.timeoutMs / 1000;
    const timer = setTimeout(() => settle(() => reject(new ChatTemplateError(`the chat template took longer than ${seconds} s to render (a loop far longer than any chat prompt needs)`))), limits.timeoutMs);
    child.once('message', (m: unknown) =>
      settle(() => {
        if (!isResult(m)) reject(new ChatTemplateError('the chat template renderer answered with something other than text'));
        else if (m.ok) resolve(m.text);
        else reject(new ChatTemplateError(m.message));
      }),
    );
    child.once('error', (e: Error) => settle(() => reject(new ChatTemplateError(`the chat template renderer could not run: ${e.message}`))));
    child.once('exit', (code, signal) => settle(() => reject(endedError(code, signal, limits))));
    child.send({ ...job, maxSteps: limits.maxSteps } satisfies TemplateJob, (e) => e && settle(() => reject(new ChatTemplateError(`the chat template renderer could not be reached: ${e.message}`))));
  });
}
