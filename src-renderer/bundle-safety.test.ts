// The renderer runs in a sandboxed page: no Node built-ins may be reachable from its entry,
// nothing dev-only (the mock API) either, and the page's CSP allows no inline script or eval.
import { readFileSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const ALLOWED_PACKAGES = ['react', 'react-dom', 'zustand', 'recharts'];
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function resolveLocal(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const c of [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx')]) if (existsSync(c) && /\.(ts|tsx|css)$/.test(c)) return c;
  return null;
}

/** Every file reachable from the entry through static and dynamic imports, and bare specifiers. */
function graph(entry: string): { files: string[]; packages: Set<string> } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    if (f.endsWith('.css')) continue;
    const src = readFileSync(f, 'utf8');
    const specs = [...src.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
    for (const s of specs) {
      if (s.startsWith('.')) {
        const r = resolveLocal(f, s);
        if (!r) throw new Error(`${relative(repo, f)}: cannot resolve ${s}`);
        todo.push(r);
      } else {
        packages.add(s);
      }
    }
  }
  return { files: [...seen].map((f) => relative(repo, f)), packages };
}

describe('renderer bundle safety', () => {
  const { files, packages } = graph(join(here, 'main.tsx'));

  it('reaches the whole app from main.tsx', () => {
    expect(files).toContain('src-renderer/App.tsx');
    expect(files).toContain('src-renderer/ws-client.ts');
    expect(files).toContain('src-main/shared/size.ts');
  });

  it('imports no Node built-ins and only the UI packages', () => {
    for (const p of packages) {
      expect(builtins.has(p), `${p} is a Node built-in`).toBe(false);
      expect(ALLOWED_PACKAGES.some((a) => p === a || p.startsWith(`${a}/`)), `unexpected package ${p}`).toBe(true);
    }
  });

  it('cannot reach dev-only or test-only code', () => {
    expect(files.filter((f) => /\/(dev|testing)\/|\.test\.tsx?$/.test(f))).toEqual([]);
  });

  it('uses no eval or Function constructor', () => {
    for (const f of files) {
      const src = readFileSync(join(repo, f), 'utf8');
      expect(/\beval\s*\(|new\s+Function\s*\(/.test(src), f).toBe(false);
    }
  });

  it('serves a page with a strict CSP and no inline script or style', () => {
    const html = readFileSync(join(here, 'index.html'), 'utf8');
    const csp = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(m[1]).toMatch(/\bsrc=/);
      expect(m[2]!.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b|\sstyle="/);
  });
});
