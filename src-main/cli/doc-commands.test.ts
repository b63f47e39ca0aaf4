// Every shell command in README.md and docs/ as a reader types it: `ramforge` commands run
// through the built CLI in one temporary folder, in page order (README.md first, so the models
// its `synth` commands write are there for the pages after it), each expected to exit 0 or the
// code its block names (`# exits N`). A command marked as needing a GPU, another machine, a
// server or minutes is parsed by the CLI's own flag parser, with its command's own flag specs,
// and not run. Any other program must be marked. And docs/cli-flags.md is what `--help` prints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliBuiltOrSkip, runCli } from './built-cli.test-util.js';
import { docCommands, type DocCommand } from './doc-commands.test-util.js';
import { formatHelp, parseArgs, wantsHelp } from './args.js';
import { COMMANDS } from './command-table.js';
import { packageRoot } from '../node/paths.js';
import { detectCgroup } from '../supervisor/index.js';

const ROOT = packageRoot();
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const GLOBAL_FLAGS = new Set(['--help', '-h', '--version', '-v', 'help', 'version']);
const built = cliBuiltOrSkip("the docs' commands");
const capped = detectCgroup();
// In CI the machine has a writable memory cgroup: the capped commands must run there.
const canCap = capped.usable || process.env.CI === 'true';
if (!canCap) console.warn(`the docs' --enforce-ram commands are only parsed here: ${capped.reason}`);

/** Throws the CLI's own usage error when the command line would not parse. */
async function parseWithCli(args: string[]): Promise<void> {
  const [name, ...rest] = args;
  if (name === undefined || GLOBAL_FLAGS.has(name)) return;
  const entry = COMMANDS[name];
  if (!entry) throw new Error(`unknown command '${name}'`);
  const { command } = await entry.load();
  if (!wantsHelp(rest)) parseArgs(rest, command);
}

/** What is wrong with one command, or null: run it (or parse it, where marked) and check its exit. */
async function check(c: DocCommand, dir: string): Promise<string | null> {
  const p = c.program;
  if (p.kind === 'npm') {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    if (!(p.script in scripts)) return `npm ${p.script}: no such script in package.json`;
    return c.parseOnly ? null : `npm ${p.script}: npm scripts are not run by this test; mark it (# not run: why)`;
  }
  if (p.kind === 'other') return c.parseOnly ? null : `${p.words[0]}: only ramforge commands are run here; mark it (# needs …) or drop it`;
  try {
    await parseWithCli(p.args);
  } catch (e) {
    return `does not parse: ${(e as Error).message}`;
  }
  // bench holds every run to its --ram with a memory group, as --enforce-ram does.
  const needsCap = p.args.includes('--enforce-ram') || (p.args[0] === 'bench' && p.args.includes('--ram'));
  if (c.parseOnly || (!canCap && needsCap)) return null;
  const r = runCli(p.args, { cwd: dir, env: { ...c.env, NO_COLOR: '1' }, timeoutMs: 400_000 });
  if (c.stdoutTo) writeFileSync(join(dir, c.stdoutTo), r.stdout);
  return r.code === c.exit ? null : `exited ${r.code ?? r.signal}, the page says ${c.exit}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`;
}

describe("the commands in README.md and docs/", () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ramforge-doc-commands-'));
    symlinkSync(join(ROOT, 'resources'), join(dir, 'resources'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("README.md's commands are ramforge's and npm's alone, and at least five of them run", () => {
    const cmds = docCommands(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'README.md');
    expect(cmds.filter((c) => c.program.kind === 'ramforge' && !c.parseOnly).length).toBeGreaterThanOrEqual(5);
    expect(cmds.filter((c) => c.program.kind === 'other').map((c) => `${c.where}: ${c.text}`)).toEqual([]);
  });

  for (const page of PAGES)
    it.runIf(built)(`${page}: every command runs with the exit it shows, or is marked and parses`, async () => {
      const cmds = docCommands(readFileSync(join(ROOT, page), 'utf8'), page);
      const failures: string[] = [];
      for (const c of cmds) {
        const why = await check(c, dir);
        if (why) failures.push(`${c.where}: ${c.text.split('\n')[0]}\n    ${why}`);
      }
      expect(failures).toEqual([]);
    }, 900_000);

  it('docs/cli-flags.md is what --help prints for every command', async () => {
    const want = await cliFlagsPage();
    const have = readFileSync(join(ROOT, 'docs', 'cli-flags.md'), 'utf8');
    const fresh = join(tmpdir(), 'ramforge-cli-flags.md');
    if (have !== want) writeFileSync(fresh, want);
    expect(have, `docs/cli-flags.md is out of date: the page as it should be is in ${fresh}`).toBe(want);
  });
});

/** The flag reference page: every command's `--help`, in the order `ramforge --help` lists them. */
async function cliFlagsPage(): Promise<string> {
  const parts = [
    '# Every command and flag',
    '',
    'What `ramforge COMMAND --help` prints, for every command (a test checks that this page is',
    'exactly that). What the commands are for, with examples: [cli.md](cli.md).',
    '',
  ];
  for (const [name, entry] of Object.entries(COMMANDS)) {
    parts.push(`## ramforge ${name}`, '', '```text', formatHelp((await entry.load()).command).trimEnd(), '```', '');
  }
  return parts.join('\n');
}
