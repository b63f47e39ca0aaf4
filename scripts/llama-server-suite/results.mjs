// The llama.cpp server suite's results: pytest's JUnit XML read into one row per test, each
// failure filed under a class (the known list's "cannot" and "missing" entries, openai-python
// missing, or unexpected), and the tables. No I/O.

const ENTITIES = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };
const unescape = (s) => s.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (e) => ENTITIES[e] ?? String.fromCodePoint(Number(e.startsWith('&#x') ? `0x${e.slice(3, -1)}` : e.slice(2, -1))));
const attr = (tag, name) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescape(m[1]) : '';
};

/** One row per <testcase>: id `test_file.py::test_name[params]`, outcome, the first line of the reason. */
export function parseJunit(xml) {
  const rows = [];
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const head = m[1];
    const body = m[3] ?? '';
    const classname = attr(head, 'classname');
    const file = classname ? `${classname.split('.').pop()}.py` : `${attr(head, 'name').split('.').pop()}.py`;
    const id = classname ? `${file}::${attr(head, 'name')}` : file;
    const bad = /<(failure|error)\b([^>]*)/.exec(body);
    const skip = /<skipped\b([^>]*)/.exec(body);
    const outcome = bad ? 'failed' : skip ? 'skipped' : 'passed';
    const message = bad ? attr(bad[2], 'message') : skip ? attr(skip[1], 'message') : '';
    rows.push({ id, file, outcome, message: message.split('\n')[0].slice(0, 300), seconds: Number(attr(head, 'time')) || 0 });
  }
  return rows;
}

/** A file's name covers its tests; a test's name its parameter sets (test[params]). */
const matches = (id, entry) => id === entry.match || id.startsWith(entry.match.endsWith('.py') ? `${entry.match}::` : `${entry.match}[`);

/** Files each failure: "needs openai-python", a known entry's class, else "unexpected". */
export function classify(rows, known, hasOpenai) {
  return rows.map((r) => {
    const cannot = known.cannot.find((e) => matches(r.id, e));
    const missing = known.missing.find((e) => matches(r.id, e));
    const listed = cannot ? { class: 'cannot', reason: cannot.reason } : missing ? { class: 'missing', reason: missing.feature } : null;
    if (r.outcome !== 'failed') return { ...r, class: r.outcome, ...(listed ? { listed: listed.class } : {}) };
    if (!hasOpenai && /openai-python is not installed|No module named 'openai'/.test(r.message)) return { ...r, class: 'needs openai-python', reason: 'the test drives the server through openai-python, which Debian does not package' };
    return { ...r, ...(listed ?? { class: 'unexpected', reason: r.message }) };
  });
}

export function summarize(rows) {
  const count = (f) => rows.filter(f).length;
  const byClass = {};
  for (const r of rows) byClass[r.class] = (byClass[r.class] ?? 0) + 1;
  return { total: rows.length, passed: count((r) => r.outcome === 'passed'), failed: count((r) => r.outcome === 'failed'), skipped: count((r) => r.outcome === 'skipped'), byClass };
}

/** Per file: passed, each failure class, skipped; then every test that did not pass. */
export function markdown(rows, summary) {
  const classes = ['passed', 'missing', 'cannot', 'needs openai-python', 'unexpected', 'skipped'];
  const files = [...new Set(rows.map((r) => r.file))].sort();
  const lines = [`# llama.cpp server suite against ramforge serve --api`, '', `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped of ${summary.total} (${summary.seconds} s).`, ''];
  lines.push(`| file | ${classes.join(' | ')} |`, `| --- |${classes.map(() => ' ---: |').join('')}`);
  for (const f of files) lines.push(`| ${f} | ${classes.map((c) => rows.filter((r) => r.file === f && r.class === c).length || '').join(' | ')} |`);
  lines.push('', '| test | outcome | class | reason |', '| --- | --- | --- | --- |');
  for (const r of rows.filter((x) => x.outcome !== 'passed')) lines.push(`| ${r.id} | ${r.outcome} | ${r.class} | ${(r.reason ?? r.message).replace(/\|/g, '\\|')} |`);
  return lines.join('\n') + '\n';
}

/** docs/api.md's two lists, from the known list: the tests that cannot pass, and the features missing. */
export function knownTables(known) {
  const esc = (s) => s.replace(/\|/g, '\\|');
  const lines = ['| test | why |', '| --- | --- |', ...known.cannot.map((e) => `| \`${e.match}\` | ${esc(e.reason)} |`)];
  lines.push('', '| test | feature |', '| --- | --- |', ...known.missing.map((e) => `| \`${e.match}\` | ${esc(e.feature)} |`));
  return lines.join('\n') + '\n';
}
