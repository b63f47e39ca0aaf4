// Entry of the process that renders one untrusted chat template (template-render.ts starts it,
// one per render, with a small heap, and kills it at the deadline). It does nothing else, so
// the interpreter's one evaluation method is wrapped here to count steps: the library has no
// hook for it, and the wrapper can reach no other code. A step is one evaluation, plus one for
// each item of a list or mapping it yields: a loop runs its body once per item without
// evaluating anything when the body is empty, so its turns are charged when its list is made.
import { Interpreter } from '@huggingface/jinja';
import { renderToolChat, type TemplateJob, type TemplateJobResult } from './tool-template.js';

/** Items a value holds (a list's or a mapping's), which a loop over it would run. */
function itemsOf(v: { value?: unknown }): number {
  if (Array.isArray(v.value)) return v.value.length;
  return v.value instanceof Map ? v.value.size : 0;
}

function render(job: TemplateJob): TemplateJobResult {
  let steps = 0;
  const evaluate = Interpreter.prototype.evaluate;
  Interpreter.prototype.evaluate = function (this: Interpreter, ...args: Parameters<Interpreter['evaluate']>) {
    const v = evaluate.apply(this, args);
    steps += 1 + itemsOf(v);
    if (steps > job.maxSteps) throw new Error(`it took more than ${job.maxSteps} steps (a loop far longer than any chat prompt needs)`);
    return v;
  };
  try {
    return { ok: true, text: renderToolChat(job.template, job.messages, job.tools, job.tokens, job.addGenerationPrompt !== false) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

process.once('message', (job) => {
  process.send?.(render(job as TemplateJob), () => process.exit(0));
});
// The worker that asked went away: nobody waits for the answer.
process.once('disconnect', () => process.exit(0));
