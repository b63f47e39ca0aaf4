// Finds Node built-ins in a browser bundle: require()/import of fs, child_process, node:*, electron…
import { builtinModules } from 'node:module';

const NAMES = [...new Set([...builtinModules.filter((m) => !m.startsWith('_')), 'electron'])]
  .map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
  .join('|');
const SPEC = `["'\`](?:node:[A-Za-z_/]+|(?:${NAMES})(?:/[A-Za-z_/]+)?)["'\`]`;
const PATTERNS: RegExp[] = [
  new RegExp(`\\brequire\\s*\\(\\s*${SPEC}\\s*\\)`, 'g'),
  new RegExp(`\\bimport\\s*\\(\\s*${SPEC}\\s*\\)`, 'g'),
  new RegExp(`\\b(?:from|import)\\s*${SPEC}`, 'g'),
  /\bprocess\.binding\s*\(/g,
  /\b__non_webpack_require__\b/g,
];

/**
 * Lines that are comments (JSDoc ` * …`, `// …`, `/* …`): libraries' doc examples such as
 * "await import('node:vm')" are text, not code. Bundlers never start a code line with these.
 */
function codeLines(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^\s*(\*|\/\/|\/\*)/.test(l))
    .join('\n');
}

/** Every Node built-in reference found in the code of the text (empty when clean). */
export function findNodeBuiltins(text: string): string[] {
  const code = codeLines(text);
  const hits: string[] = [];
  for (const re of PATTERNS) for (const m of code.matchAll(re)) hits.push(m[0]);
  return hits;
}
