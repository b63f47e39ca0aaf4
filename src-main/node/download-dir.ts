// Where `ramforge pull` saves models unless told otherwise: RAMforge's own models folder, which
// model discovery lists (source "ramforge") next to Ollama's, LM Studio's and the others.
import { join } from 'node:path';
import { dataRoot } from './paths.js';

export function defaultDownloadDir(): string {
  return join(dataRoot(), 'models');
}
