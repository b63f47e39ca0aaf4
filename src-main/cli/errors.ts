// The CLI's errors and exit codes live with the shared code (the supervisor raises them too).
export { CliError, EXIT, UsageError } from '../shared/errors.js';
