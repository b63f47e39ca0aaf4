#!/usr/bin/env node
// No function over 100 lines in src-main (TypeScript) or native/src (C++), as a check instead of
// a review comment. A function that stays longer is named in ALLOWED with the reason it stays;
// a name there that is no longer long is reported too, so the list cannot go stale.
//
//   node scripts/check-function-length.mjs   prints each offender (file: name — lines), exit 1 if any
//
// `longFunctions(files)` and `checkFunctionLength(files, allowed)` are pure: tests feed them
// sources. Lines are counted from the line of the signature to the line of the closing brace,
// nested functions included in their parent's count (and counted on their own as well). Test
// files (*.test.ts, *.test-util.ts, fixtures/) are not counted.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_LINES = 100;

/** `file: name` → why it stays longer than MAX_LINES. Keep this short and honest. */
export const ALLOWED = {};

const TEST_PATH = /\.test\.tsx?$|\.test-util\.tsx?$|(^|\/)fixtures\//;

/** The name a TypeScript function node is known by: its own, its variable's, its property's. */
function tsName(node) {
  const own = node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name)) ? node.name.text : null;
  const cls = (n) => (n && (ts.isClassDeclaration(n) || ts.isClassExpression(n)) && n.name ? `${n.name.text}.` : '');
  if (ts.isConstructorDeclaration(node)) return `${cls(node.parent)}constructor`;
  if (own) return ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node) ? `${cls(node.parent)}${own}` : own;
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && (ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) return p.name.text;
  if (p && ts.isCallExpression(p)) {
    const callee = p.expression.getText();
    const first = p.arguments[0];
    return `${callee}(${first && ts.isStringLiteral(first) ? `'${first.text}'` : ''}) callback`;
  }
  return '<anonymous>';
}

function tsFunctions(path, source) {
  const sf = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out = [];
  const visit = (node) => {
    if ((ts.isFunctionLike(node) && 'body' in node && node.body) || ts.isClassStaticBlockDeclaration(node)) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ file: path, name: tsName(node), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** C++ source with comments, string and character literals blanked (newlines kept). */
function blankCpp(src) {
  let out = '';
  for (let i = 0; i < src.length; ) {
    const c = src[i];
    const n = src[i + 1];
    if (c === '/' && n === '/') {
      while (i < src.length && src[i] !== '\n') (out += ' '), i++;
    } else if (c === '/' && n === '*') {
      const e = src.indexOf('*/', i + 2);
      const stop = e < 0 ? src.length : e + 2;
      for (; i < stop; i++) out += src[i] === '\n' ? '\n' : ' ';
    } else if (c === 'R' && n === '"') {
      const open = src.indexOf('(', i);
      const delim = `)${src.slice(i + 2, open)}"`;
      const e = src.indexOf(delim, open);
      const stop = e < 0 ? src.length : e + delim.length;
      for (; i < stop; i++) out += src[i] === '\n' ? '\n' : ' ';
    } else if (c === '"' || (c === "'" && !/[0-9a-fA-F]/.test(src[i - 1] ?? ''))) {
      out += ' ';
      i++;
      while (i < src.length && src[i] !== c && src[i] !== '\n') {
        if (src[i] === '\\') (out += ' '), i++;
        out += ' ';
        i++;
      }
      out += ' ';
      i++;
    } else if (c === '#' && /(^|\n)[ \t]*$/.test(out.slice(-80))) {
      // Preprocessor lines (with their continuations) hold no function bodies.
      while (i < src.length && (src[i] !== '\n' || src[i - 1] === '\\')) (out += src[i] === '\n' ? '\n' : ' '), i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const CONTROL = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'sizeof', 'alignof', 'decltype', 'defined']);

/**
 * Function definitions in C++: at namespace or class scope, a `{` whose head (the text since the
 * last `;`, `{` or `}`) is `… name(…) [const|noexcept|override|-> type|: inits]`. Namespaces,
 * classes, structs, unions, enums and `extern "C"` are scopes to look inside; a function's body
 * (lambdas included) counts as the function's.
 */
function cppFunctions(path, source) {
  const s = blankCpp(source);
  const out = [];
  const lineAt = (i) => {
    let n = 1;
    for (let k = 0; k < i; k++) if (s[k] === '\n') n++;
    return n;
  };
  const matchBrace = (i) => {
    let depth = 0;
    for (let k = i; k < s.length; k++) {
      if (s[k] === '{') depth++;
      else if (s[k] === '}' && --depth === 0) return k;
    }
    return s.length - 1;
  };
  const scan = (from, to, scope) => {
    let headStart = from;
    for (let i = from; i < to; i++) {
      const c = s[i];
      if (c === ';' || c === '}') headStart = i + 1;
      else if (c === '(') {
        // Skip parenthesized text so a `{` inside a default argument or initializer is not a body.
        let depth = 0;
        for (; i < to; i++) {
          if (s[i] === '(') depth++;
          else if (s[i] === ')' && --depth === 0) break;
        }
      } else if (c === '{') {
        const head = s.slice(headStart, i).replace(/\s+/g, ' ').trim();
        const close = matchBrace(i);
        const container = /^(template ?<.*> ?)?(namespace|class|struct|union|enum)\b|^extern\b/.test(head) && !/\)\s*(const\s*)?$/.test(head);
        const fn = !container && /([A-Za-z_~][\w:~<>,* &]*?)\s*\((.*)\)\s*(const|noexcept|override|final|mutable|\s|->\s*[\w:<>,* &]+|:\s*.+)*$/.exec(head);
        let name = null;
        if (fn) {
          const callee = /([A-Za-z_~][\w:~]*(?:<[^()]*>)?(?:::[A-Za-z_~]\w*)*|operator\s*\S+)\s*\($/.exec(head.slice(0, head.indexOf('(') + 1));
          const id = callee ? callee[1].replace(/<[^()]*>$/, '') : null;
          if (id && !CONTROL.has(id) && !/=\s*\[/.test(head) && !/^\[/.test(head)) name = id;
        }
        if (name && /\)[^()]*:[^]*[A-Za-z_]\w*\s*$/.test(head) && !/\)\s*$/.test(head)) {
          // A member's brace initializer in a constructor's initializer list, not the body.
          i = close;
          continue;
        }
        if (container) {
          const m = /\b(namespace|class|struct|union)\s+([A-Za-z_]\w*)/.exec(head);
          scan(i + 1, close, m && m[1] !== 'namespace' ? `${scope}${m[2]}::` : scope);
        } else if (name) {
          const start = lineAt(headStart + (s.slice(headStart, i).length - s.slice(headStart, i).trimStart().length));
          out.push({ file: path, name: name.includes('::') || !scope ? name : `${scope}${name}`, line: start, lines: lineAt(close) - start + 1 });
        }
        i = close;
        headStart = close + 1;
      }
    }
  };
  scan(0, s.length, '');
  return out;
}

/**
 * @param {{ path: string, source: string }[]} files repository-relative POSIX paths
 * @returns {{ file: string, name: string, line: number, lines: number }[]} every function over MAX_LINES
 */
export function longFunctions(files, max = MAX_LINES) {
  const out = [];
  for (const f of files) {
    if (TEST_PATH.test(f.path)) continue;
    const fns = /\.(cpp|cc|h|hpp)$/.test(f.path) ? cppFunctions(f.path, f.source) : /\.tsx?$/.test(f.path) ? tsFunctions(f.path, f.source) : [];
    for (const fn of fns) if (fn.lines > max) out.push(fn);
  }
  return out;
}

/**
 * @returns {{ offenders: object[], stale: string[] }} long functions not allowed, and allowed names no longer long
 */
export function checkFunctionLength(files, allowed = ALLOWED, max = MAX_LINES) {
  const long = longFunctions(files, max);
  const key = (f) => `${f.file}: ${f.name}`;
  const offenders = long.filter((f) => !(key(f) in allowed));
  const seen = new Set(long.map(key));
  return { offenders, stale: Object.keys(allowed).filter((k) => !seen.has(k)) };
}

/** The counted sources: .ts/.tsx under src-main, .cpp/.h under native/src. */
export function sourceFiles(root) {
  const out = [];
  const walk = (dir, re) => {
    for (const e of readdirSync(dir)) {
      if (e === 'node_modules' || e === 'build' || e === 'out') continue;
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p, re);
      else if (re.test(e) && !e.endsWith('.d.ts')) out.push({ path: relative(root, p).split(sep).join('/'), source: readFileSync(p, 'utf8') });
    }
  };
  walk(join(root, 'src-main'), /\.tsx?$/);
  walk(join(root, 'native', 'src'), /\.(cpp|cc|h|hpp)$/);
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const all = process.argv.includes('--all');
  const files = sourceFiles(root);
  if (all) {
    for (const f of longFunctions(files).sort((a, b) => b.lines - a.lines)) process.stdout.write(`${f.file}:${f.line}: ${f.name} — ${f.lines} lines${`${f.file}: ${f.name}` in ALLOWED ? ' (allowed)' : ''}\n`);
  }
  const { offenders, stale } = checkFunctionLength(files);
  for (const f of offenders) process.stderr.write(`${f.file}:${f.line}: ${f.name} — ${f.lines} lines (over ${MAX_LINES}; split it by job, or allow it in scripts/check-function-length.mjs with the reason)\n`);
  for (const k of stale) process.stderr.write(`${k}: allowed in scripts/check-function-length.mjs but no longer over ${MAX_LINES} lines; remove it from ALLOWED\n`);
  const n = offenders.length + stale.length;
  process.stderr.write(n ? `function length: ${n} problem(s)\n` : 'function length: ok\n');
  process.exit(n ? 1 : 0);
}
