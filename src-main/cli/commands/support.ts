// PLACEHOLDER — replaced by the owner of this command before the work lands.
import type { CommandSpec } from '../args.js';
import { CliError } from '../errors.js';

export const command: CommandSpec = {
  name: 'support',
  summary: 'not built yet',
  positionals: [],
  flags: [],
  async run() {
    throw new CliError('support is not built yet', 1);
  },
};
