// JSON Schema of `ramforge models --json` (docs/cli-json.md, "models"); tests validate real
// output against it.
import { DISCOVERY_SOURCES } from './types.js';

const nullableNumber = { type: ['number', 'null'] } as const;

export const MODELS_JSON_SCHEMA = {
  type: 'object',
  required: ['schemaVersion', 'budget', 'roots', 'models'],
  additionalProperties: false,
  properties: {
    schemaVersion: { const: 1 },
    budget: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['ramBytes', 'ramSource', 'diskBandwidthSource'],
          additionalProperties: false,
          properties: { ramBytes: { type: 'integer', minimum: 1 }, ramSource: { type: 'string' }, diskBandwidthSource: { type: 'string' } },
        },
      ],
    },
    roots: {
      type: 'array',
      items: {
        type: 'object',
        required: ['source', 'path', 'present'],
        additionalProperties: false,
        properties: { source: { enum: [...DISCOVERY_SOURCES] }, path: { type: 'string' }, present: { type: 'boolean' } },
      },
    },
    models: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['source', 'root', 'name', 'path', 'files', 'fileBytes', 'kind', 'chat', 'reason', 'architecture', 'modelName', 'parameterCount', 'quantization', 'contextLength', 'plan', 'planError'],
        properties: {
          source: { enum: [...DISCOVERY_SOURCES] },
          root: { type: 'string' },
          name: { type: 'string', minLength: 1 },
          path: { type: 'string', minLength: 1 },
          files: { type: 'array', items: { type: 'string' }, minItems: 1 },
          fileBytes: { type: ['integer', 'null'], minimum: 0 },
          kind: { enum: ['model', 'embedding', 'adapter', 'projector', 'vocab-only', 'unsupported', 'unreadable'] },
          chat: { type: 'boolean' },
          reason: { type: ['string', 'null'] },
          architecture: { type: ['string', 'null'] },
          modelName: { type: ['string', 'null'] },
          parameterCount: { type: ['integer', 'null'], minimum: 0 },
          quantization: { type: ['string', 'null'] },
          contextLength: { type: ['integer', 'null'] },
          plan: {
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                additionalProperties: false,
                required: ['verdict', 'reason', 'ctx', 'ramUsedBytes', 'minimumRamBytes', 'fullResidencyRamBytes', 'bytesReadPerToken', 'predictedDecodeTokS'],
                properties: {
                  verdict: { enum: ['fits', 'out-of-core', 'cannot-run'] },
                  reason: { type: 'string' },
                  ctx: { type: 'integer', minimum: 1 },
                  ramUsedBytes: nullableNumber,
                  minimumRamBytes: nullableNumber,
                  fullResidencyRamBytes: nullableNumber,
                  bytesReadPerToken: nullableNumber,
                  predictedDecodeTokS: nullableNumber,
                },
              },
            ],
          },
          planError: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const;
