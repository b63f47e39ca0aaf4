// Rules every host (CLI, app) applies the same way when it turns settings into a load.
import type { PolicyName } from './worker-protocol.js';

/** Policies that release or stream mapping pages (and so need the weights file-backed). */
export function releasesPages(policy: PolicyName | undefined): boolean {
  return policy !== undefined && policy !== 'off' && policy !== 'observe';
}
