// The docs' commands as the docs' test reads them from Markdown: which lines are commands, how
// marks apply, and how a command line splits into the CLI's words.
import { describe, expect, it } from 'vitest';
import { docCommands, shellWords } from './doc-commands.test-util.js';

const page = (...lines: string[]) => lines.join('\n');

describe("the docs' commands", () => {
  it('are the $ lines of console blocks and every line of sh blocks, never output or text blocks', () => {
    const md = page(
      '```console',
      '$ npx ramforge synth --out a.gguf',
      'a.gguf: 10.1 MiB',
      '```',
      '```',
      'npx ramforge run b.gguf',
      '```',
      '```sh',
      '# a comment, not a command',
      'npx ramforge plan a.gguf --ram 1G   # trailing comment',
      '```',
    );
    const cmds = docCommands(md, 'p.md');
    expect(cmds.map((c) => [c.where, c.program])).toEqual([
      ['p.md:2', { kind: 'ramforge', args: ['synth', '--out', 'a.gguf'] }],
      ['p.md:10', { kind: 'ramforge', args: ['plan', 'a.gguf', '--ram', '1G'] }],
    ]);
  });

  it('take a mark for the commands after it in the same block, and only there', () => {
    const md = page(
      '```console',
      '$ npx ramforge synth --out a.gguf',
      '# needs a GPU',
      '$ npx ramforge run a.gguf --gpu 0',
      '```',
      '```console',
      '# exits 2',
      '$ npx ramforge run a.gguf --ram 1M --enforce-ram',
      '```',
      '```console',
      '$ npx ramforge run a.gguf',
      '```',
    );
    expect(docCommands(md, 'p.md').map((c) => [c.parseOnly ?? null, c.exit])).toEqual([
      [null, 0],
      ['needs a GPU', 0],
      [null, 2],
      [null, 0],
    ]);
  });

  it('read indented blocks in list items, continued lines, env, redirections and other programs', () => {
    const md = page(
      '- a bullet:',
      '  ```console',
      '  $ K=v npx ramforge plan http://h/m.gguf \\',
      '      --ram 8G > url.txt && diff a.txt url.txt',
      "  $ curl -d '{\"a\":",
      "    1}' http://h/",
      '  ```',
    );
    const [plan, diff, curl] = docCommands(md, 'p.md');
    expect(plan).toMatchObject({ where: 'p.md:3', env: { K: 'v' }, stdoutTo: 'url.txt', program: { kind: 'ramforge', args: ['plan', 'http://h/m.gguf', '--ram', '8G'] } });
    expect(diff?.program).toEqual({ kind: 'other', words: ['diff', 'a.txt', 'url.txt'] });
    expect(curl?.program).toEqual({ kind: 'other', words: ['curl', '-d', '{"a":\n    1}', 'http://h/'] });
  });

  it('split words as a shell would for quotes and escapes', () => {
    expect(shellWords(`run m.gguf -p 'Once upon a time' --system "say \\"hi\\"" a\\ b`)).toEqual(['run', 'm.gguf', '-p', 'Once upon a time', '--system', 'say "hi"', 'a b']);
    expect(() => shellWords("run -p 'open")).toThrow(/open ' quote/);
  });

  it('know npm scripts, with or without run', () => {
    const md = page('```sh', 'npm start', 'npm run gpu-check', '```');
    expect(docCommands(md, 'p.md').map((c) => c.program)).toEqual([
      { kind: 'npm', script: 'start' },
      { kind: 'npm', script: 'gpu-check' },
    ]);
  });
});
