// `electron . [--model PATH]` (or RAMFORGE_MODEL): the model the window opens with.
export function modelFromArgv(argv: readonly string[], env: NodeJS.ProcessEnv): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--model' && argv[i + 1]) return argv[i + 1] as string;
    if (a.startsWith('--model=')) return a.slice('--model='.length) || null;
  }
  return env.RAMFORGE_MODEL || null;
}
