// Test helpers (not a test file itself): the shell commands of a Markdown page, as a reader would
// type them, with the marks that say which ones the docs' test only parses.
//
// Commands are the lines of ```sh / ```bash / ```console blocks (in console blocks, the lines after
// `$ `; the other lines are output). A comment line in a block marks the commands after it:
//   # needs …, # takes …, # not run …   parsed, not run (a GPU, another machine, a server, minutes)
//   # exits N                           run, and expected to exit N instead of 0

const COMMAND_FENCES = new Set(['sh', 'bash', 'shell', 'console']);
const PARSE_ONLY_MARK = /^#\s*((?:needs|takes|not run)\b.*)$/;
const EXIT_MARK = /^#\s*exits\s+(\d+)\s*$/;
const ENV_WORD = /^[A-Za-z_][A-Za-z0-9_]*=/;

export type DocProgram =
  | { kind: 'ramforge'; args: string[] }
  | { kind: 'npm'; script: string }
  | { kind: 'other'; words: string[] };

export interface DocCommand {
  /** Where it is: `README.md:42`. */
  where: string;
  /** The command as written (continuation lines joined). */
  text: string;
  env: Record<string, string>;
  program: DocProgram;
  /** The file a `> FILE` sends stdout to, relative to the folder the commands run in. */
  stdoutTo?: string;
  /** Why it is only parsed (the mark's text), when it is marked so. */
  parseOnly?: string;
  /** The exit code the page expects (0 unless marked `# exits N`). */
  exit: number;
}

interface Marks {
  parseOnly?: string;
  exit: number;
}

/** Every command in the page's command blocks, in order. */
export function docCommands(markdown: string, page: string): DocCommand[] {
  const lines = markdown.split('\n');
  const out: DocCommand[] = [];
  let fence: string | null = null;
  let marks: Marks = { exit: 0 };
  for (let i = 0; i < lines.length; i++) {
    // Blocks inside list items are indented: their fences and prompts are read without it.
    const line = (lines[i] as string).trimStart();
    if (line.startsWith('```')) {
      fence = fence === null ? line.slice(3).trim() : null;
      marks = { exit: 0 };
      continue;
    }
    if (fence === null || !COMMAND_FENCES.has(fence)) continue;
    const body = fence === 'console' ? (line.startsWith('$ ') ? line.slice(2) : null) : line;
    const mark = markOf(line.trim());
    if (mark) {
      marks = { ...marks, ...mark };
      continue;
    }
    if (body === null || body.trim() === '' || body.trim().startsWith('#')) continue;
    let text = body;
    while (unfinished(text) && i + 1 < lines.length && !(lines[i + 1] as string).trimStart().startsWith('```')) text += '\n' + (lines[++i] as string);
    for (const simple of splitCommands(shellWords(text))) out.push(toCommand(simple, text, `${page}:${firstLine(text, i)}`, marks));
  }
  return out;
}

function markOf(line: string): Partial<Marks> | null {
  const p = PARSE_ONLY_MARK.exec(line);
  if (p) return { parseOnly: p[1] };
  const e = EXIT_MARK.exec(line);
  return e ? { exit: Number(e[1]) } : null;
}

/** 1-based number of the command's first line (i is the index of its last). */
function firstLine(text: string, i: number): number {
  return i + 2 - text.split('\n').length;
}

/** A line continued by a trailing backslash or inside an open quote. */
function unfinished(text: string): boolean {
  if (/\\$/.test(text)) return true;
  try {
    shellWords(text);
    return false;
  } catch {
    return true;
  }
}

const OPERATORS = ['&&', '||', '2>', '|', ';', '&', '>'];

/**
 * The words and operators of a command line, quotes removed, comments dropped. Only what the
 * docs use: single and double quotes, backslash escapes and continuations, `#` comments, and
 * the operators above. An open quote throws.
 */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  const end = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') {
      if (text[i + 1] !== '\n') word = (word ?? '') + (text[i + 1] ?? '');
      i++;
    } else if (c === "'" || c === '"') {
      const close = closingQuote(text, i);
      word = (word ?? '') + unquote(text.slice(i + 1, close), c);
      i = close;
    } else if (c === '#' && word === null) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (/\s/.test(c)) {
      end();
      if (c === '\n') words.push(';');
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i) && (o !== '2>' || word === null));
      if (op) {
        end();
        words.push(op);
        i += op.length - 1;
      } else word = (word ?? '') + c;
    }
  }
  end();
  return words;
}

function closingQuote(text: string, open: number): number {
  const q = text[open];
  for (let j = open + 1; j < text.length; j++) {
    if (q === '"' && text[j] === '\\') j++;
    else if (text[j] === q) return j;
  }
  throw new Error(`an open ${q} quote in: ${text}`);
}

function unquote(inner: string, q: string): string {
  return q === '"' ? inner.replace(/\\(["\\$`])/g, '$1') : inner;
}

/** Simple commands between `&&`, `||`, `;`, `|` and `&`, with their `> FILE` kept as an operator pair. */
function splitCommands(words: string[]): string[][] {
  const out: string[][] = [[]];
  for (const w of words) {
    if (['&&', '||', ';', '|', '&'].includes(w)) out.push([]);
    else (out[out.length - 1] as string[]).push(w);
  }
  return out.filter((c) => c.length > 0);
}

function toCommand(words: string[], text: string, where: string, marks: Marks): DocCommand {
  const env: Record<string, string> = {};
  let k = 0;
  for (; k < words.length && ENV_WORD.test(words[k] as string); k++) {
    const w = words[k] as string;
    env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1);
  }
  const rest = words.slice(k);
  let stdoutTo: string | undefined;
  const plain: string[] = [];
  for (let j = 0; j < rest.length; j++) {
    if (rest[j] === '>') stdoutTo = rest[++j];
    else if (rest[j] === '2>') j++;
    else plain.push(rest[j] as string);
  }
  return { where, text, env, program: programOf(plain), ...(stdoutTo ? { stdoutTo } : {}), ...(marks.parseOnly ? { parseOnly: marks.parseOnly } : {}), exit: marks.exit };
}

function programOf(words: string[]): DocProgram {
  const [a, b, c] = words;
  if (a === 'npx' && b === 'ramforge') return { kind: 'ramforge', args: words.slice(2) };
  if (a === 'ramforge') return { kind: 'ramforge', args: words.slice(1) };
  if (a === 'node' && b === 'bin/ramforge.mjs') return { kind: 'ramforge', args: words.slice(2) };
  if (a === 'npm' && b === 'run' && c) return { kind: 'npm', script: c };
  if (a === 'npm' && b) return { kind: 'npm', script: b };
  return { kind: 'other', words };
}
