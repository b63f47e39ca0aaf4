// The run report's JSON Schema, compiled once for tests (resources/report.schema.json).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { packageRoot } from '../node/paths.js';

const schema = JSON.parse(readFileSync(join(packageRoot(), 'resources', 'report.schema.json'), 'utf8'));
// ajv-formats is not a dependency; the one format the schema uses is checked here.
const ajv = new Ajv({ allErrors: true, strict: false, formats: { 'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/ } });

export const validateReport = ajv.compile(schema);
