// JSON Schema of `ramforge inspect --json` (schemaVersion 1). Tests validate real output
// against it; docs/cli-json.md describes the same shape in words.
const nint = { type: 'integer', minimum: 0 } as const;
const nullableInt = { type: ['integer', 'null'] } as const;
const tensor = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type', 'dims', 'elements', 'bytes', 'shard', 'start', 'end'],
  properties: {
    name: { type: 'string' },
    type: { type: 'string' },
    dims: { type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 1, maxItems: 4 },
    elements: nint,
    bytes: nint,
    shard: nint,
    start: nint,
    end: nint,
  },
} as const;

export const INSPECT_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'ramforge inspect --json',
  type: 'object',
  additionalProperties: false,
  required: ['schemaVersion', 'input', 'architecture', 'name', 'vocabOnly', 'parameterCount', 'fileBytes', 'tensorBytes', 'shards', 'hyperparameters', 'tokenizer', 'chatTemplate', 'quantization', 'layers', 'persistent', 'moe', 'metadata'],
  properties: {
    schemaVersion: { const: 1 },
    input: { type: 'string' },
    architecture: { type: ['string', 'null'] },
    name: { type: ['string', 'null'] },
    vocabOnly: { type: 'boolean' },
    parameterCount: nint,
    fileBytes: nint,
    tensorBytes: nint,
    shards: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'fileBytes', 'ggufVersion', 'alignment', 'dataOffset', 'tensorCount', 'tensorBytes'],
        properties: { path: { type: 'string' }, fileBytes: nint, ggufVersion: nint, alignment: nint, dataOffset: nint, tensorCount: nint, tensorBytes: nint },
      },
    },
    hyperparameters: {
      type: 'object',
      additionalProperties: false,
      required: ['blockCount', 'contextLength', 'embeddingLength', 'feedForwardLength', 'headCount', 'headCountKv', 'headDim'],
      properties: {
        blockCount: nullableInt,
        contextLength: nullableInt,
        embeddingLength: nullableInt,
        feedForwardLength: nullableInt,
        headCount: nullableInt,
        headCountKv: nullableInt,
        headDim: nullableInt,
      },
    },
    tokenizer: { type: 'object', additionalProperties: false, required: ['model', 'vocabSize'], properties: { model: { type: ['string', 'null'] }, vocabSize: nullableInt } },
    chatTemplate: { type: 'object', additionalProperties: false, required: ['present', 'chars'], properties: { present: { type: 'boolean' }, chars: nullableInt } },
    quantization: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['type', 'tensors', 'bytes', 'elements'], properties: { type: { type: 'string' }, tensors: nint, bytes: nint, elements: nint } },
    },
    layers: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['index', 'bytes', 'tensors'], properties: { index: nint, bytes: nint, tensors: { type: 'array', items: tensor } } },
    },
    persistent: { type: 'object', additionalProperties: false, required: ['bytes', 'tensors'], properties: { bytes: nint, tensors: { type: 'array', items: tensor } } },
    moe: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['expertCount', 'expertUsedCount', 'expertSharedCount', 'expertFeedForwardLength', 'layers', 'bytesPerExpert', 'expertBytes', 'denseBytes', 'sharedExpertBytes', 'activeBytesPerToken', 'routerSkew'],
          properties: {
            expertCount: { type: 'integer', minimum: 1 },
            expertUsedCount: nullableInt,
            expertSharedCount: nint,
            expertFeedForwardLength: nullableInt,
            layers: { type: 'array', items: nint },
            bytesPerExpert: nint,
            expertBytes: nint,
            denseBytes: nint,
            sharedExpertBytes: nint,
            activeBytesPerToken: nullableInt,
            routerSkew: { type: ['number', 'null'], minimum: 0 },
          },
        },
      ],
    },
    metadata: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'type', 'value'],
        properties: { key: { type: 'string', minLength: 1 }, type: { type: 'string' }, elementType: { type: 'string' }, length: nint, value: {} },
      },
    },
  },
} as const;
