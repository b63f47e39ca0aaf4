// PLACEHOLDER — replaced by the owner of this command before the work lands.
import type { CommandSpec } from '../args.js';
import { CliError } from '../errors.js';

export const command: CommandSpec = {
  name: 'serve',
  summary: 'not built yet',
  positionals: [],
  flags: [],
  async run() {
    throw new CliError('serve is not built yet', 1);
  },
};
