// The error the CLI turns into exit 2: a cap was asked for and no memory cgroup can hold it.
import { ExitError, EXIT } from '../shared/errors.js';

export class CgroupUnavailableError extends ExitError {
  readonly code = 'CGROUP_UNAVAILABLE';
  constructor(message: string) {
    super(`cannot enforce the memory cap: ${message}`, EXIT.usage);
    this.name = 'CgroupUnavailableError';
  }
}
