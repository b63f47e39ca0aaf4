// What the openai-python examples runner makes of each script's run (pure: no I/O): its class
// (passed, known: a failure examples.json lists whose output matches the listed pattern,
// unexpected, skipped), and the markdown table docs/api.md shows.

/** A module the script imports that this Python lacks: the run is skipped, not failed. */
export function missingModule(output) {
  const m = /ModuleNotFoundError: No module named '([^']+)'/.exec(output);
  return m ? m[1].split('.')[0] : null;
}

/** @param {{script: string, rc: number | null, timedOut: boolean, output: string}} run */
export function classify(run, known) {
  if (run.rc === 0) return { script: run.script, outcome: 'passed', class: 'passed', why: '' };
  const module = missingModule(run.output);
  if (module) return { script: run.script, outcome: 'skipped', class: 'skipped', why: `this Python lacks the module ${module} (Debian: python3-${module})` };
  // A name the installed client lacks: the copies follow a newer openai-python than this one.
  const name = /ImportError: cannot import name '([^']+)' from 'openai/.exec(run.output);
  if (name) return { script: run.script, outcome: 'skipped', class: 'skipped', why: `this openai-python has no ${name[1]} (older than the examples' commit)` };
  const last = lastLine(run.output);
  const entry = known.find((k) => k.script === run.script && !run.timedOut && new RegExp(k.when).test(run.output));
  if (entry) return { script: run.script, outcome: 'failed', class: 'known', why: entry.reason, message: last };
  const why = run.timedOut ? 'timed out' : `exit ${run.rc}: ${last}`;
  return { script: run.script, outcome: 'failed', class: 'unexpected', why, message: last };
}

/** The last line of a Python traceback (the exception) or of the output. */
function lastLine(output) {
  const lines = output.trim().split('\n');
  return (lines[lines.length - 1] ?? '').slice(0, 300);
}

export function summarize(rows) {
  const count = (o) => rows.filter((r) => r.outcome === o).length;
  return { passed: count('passed'), failed: count('failed'), known: rows.filter((r) => r.class === 'known').length, skipped: count('skipped') };
}

const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function markdown(rows, notApplicable) {
  const out = ['| script | result | why |', '| --- | --- | --- |'];
  for (const r of rows) out.push(`| \`${r.script}\` | ${r.class === 'known' ? 'fails (known)' : r.outcome} | ${cell(r.why)} |`);
  out.push('', '**Not applicable** (not run: a service serve does not offer):', '', '| script | why |', '| --- | --- |');
  for (const n of notApplicable) out.push(`| \`${n.script}\` | ${cell(n.reason)} |`);
  return out.join('\n') + '\n';
}
