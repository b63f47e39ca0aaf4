// JSON Schema of `ramforge plan --json` (the MemoryPlan, schemaVersion 1).
const nint = { type: 'integer', minimum: 0 } as const;
const quantity = {
  type: 'object',
  additionalProperties: false,
  required: ['value', 'formula'],
  properties: { value: { type: ['number', 'null'] }, formula: { type: 'string', minLength: 1 } },
} as const;
const tier = {
  type: 'object',
  additionalProperties: false,
  required: ['layers', 'bytes'],
  properties: { layers: { type: 'array', items: nint }, bytes: nint },
} as const;
const QUANTITIES = [
  'persistentBytes',
  'layerBytesTotal',
  'kvBytesPerLayer',
  'kvBytesTotal',
  'kvRamBytes',
  'computeBufferBytes',
  'runtimeOverheadBytes',
  'embeddingsBytes',
  'fixedRamBytes',
  'pinnedBytes',
  'streamingReserveBytes',
  'headroomBytes',
  'ramUsedBytes',
  'vramUsedBytes',
  'bytesReadPerToken',
  'floorBytesPerToken',
  'predictedDecodeTokS',
  'minimumRamBytes',
  'fullResidencyRamBytes',
] as const;

const MOE_QUANTITIES = [
  'bytesPerExpert',
  'expertBytes',
  'denseLayerBytes',
  'lockedBytes',
  'stagingBytes',
  'expertCacheBytes',
  'activeBytesPerToken',
  'hitRate',
  'bytesReadPerToken',
  'floorBytesPerToken',
  'predictedDecodeTokS',
  'minimumRamBytes',
  'tensorScheduleBytesPerToken',
] as const;

/** The expert cache of a mixture of experts; absent from a dense model's plan. */
const moe = {
  type: 'object',
  additionalProperties: false,
  required: ['expertCount', 'expertUsedCount', 'expertSharedCount', 'layers', 'expertTensors', 'cacheExpertsPerLayer', 'deviceTier', 'routing', 'quantities'],
  properties: {
    expertCount: { type: 'integer', minimum: 1 },
    expertUsedCount: { type: 'integer', minimum: 1 },
    expertSharedCount: nint,
    layers: { type: 'array', items: nint },
    expertTensors: { type: 'array', items: { type: 'string' } },
    cacheExpertsPerLayer: nint,
    deviceTier: { oneOf: [{ type: 'null' }, { type: 'object', additionalProperties: false, required: ['slotsPerLayer', 'hitRate'], properties: { slotsPerLayer: nint, hitRate: quantity } }] },
    routing: {
      type: 'object',
      additionalProperties: false,
      required: ['source', 'skew', 'description'],
      // More sources (measured routing) may be added; read `description`.
      properties: { source: { type: 'string' }, skew: { type: ['number', 'null'] }, description: { type: 'string' } },
    },
    quantities: { type: 'object', additionalProperties: false, required: [...MOE_QUANTITIES], properties: Object.fromEntries(MOE_QUANTITIES.map((k) => [k, quantity])) },
  },
} as const;

const GPU_QUANTITIES = ['budgetBytes', 'headBytes', 'layerWeightBytes', 'kvBytes', 'computeBytes', 'usedBytes'] as const;

/** The VRAM tier (place-vram.ts); absent without a VRAM budget. */
export const GPU_PLAN_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['device', 'gpuLayers', 'layers', 'outputOnDevice', 'mode', 'cpuTensors', 'expertLayers', 'deviceExperts', 'quantities'],
  properties: {
    device: { type: ['string', 'null'] },
    gpuLayers: nint,
    layers: { type: 'array', items: nint },
    outputOnDevice: { type: 'boolean' },
    mode: { enum: ['none', 'layers', 'dense-first'] },
    cpuTensors: { type: 'array', items: { type: 'string' } },
    expertLayers: { type: 'array', items: nint },
    deviceExperts: {
      oneOf: [
        { type: 'null' },
        { type: 'object', additionalProperties: false, required: ['slotsPerLayer', 'slotBytes', 'stagingBytes'], properties: { slotsPerLayer: nint, slotBytes: quantity, stagingBytes: quantity } },
      ],
    },
    quantities: { type: 'object', additionalProperties: false, required: [...GPU_QUANTITIES], properties: Object.fromEntries(GPU_QUANTITIES.map((k) => [k, quantity])) },
  },
} as const;

/** Layers on other machines (place-remote.ts); absent without `--rpc`. */
export const REMOTE_PLAN_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['nodes', 'cpuTensors', 'layerCount', 'split', 'networkBytesPerToken', 'remoteSecondsPerToken'],
  properties: {
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['endpoint', 'freeBytes', 'totalBytes', 'budgetBytes', 'layers', 'headBytes', 'receiveBytes', 'weightBytes', 'kvBytes', 'computeBytes'],
        properties: { endpoint: { type: 'string' }, freeBytes: nint, totalBytes: nint, budgetBytes: nint, layers: { type: 'array', items: nint }, headBytes: nint, receiveBytes: nint, weightBytes: nint, kvBytes: { type: 'number' }, computeBytes: nint },
      },
    },
    cpuTensors: { type: 'array', items: { type: 'string' } },
    layerCount: nint,
    split: { type: 'array', items: nint },
    networkBytesPerToken: quantity,
    remoteSecondsPerToken: quantity,
  },
} as const;

export const PLAN_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'ramforge plan --json',
  type: 'object',
  additionalProperties: false,
  required: ['schemaVersion', 'model', 'input', 'layers', 'tiers', 'quantities', 'stream', 'draft', 'verdict', 'reason', 'notes'],
  properties: {
    schemaVersion: { const: 1 },
    model: {
      type: 'object',
      additionalProperties: false,
      required: ['architecture', 'name', 'blockCount', 'fileBytes', 'tensorBytes'],
      properties: { architecture: { type: ['string', 'null'] }, name: { type: ['string', 'null'] }, blockCount: nint, fileBytes: nint, tensorBytes: nint },
    },
    input: {
      type: 'object',
      additionalProperties: false,
      required: ['ramBytes', 'vramBytes', 'ctx', 'ubatch', 'kvTypeBytes', 'prefetchDepth', 'diskBandwidthBytesPerS', 'diskBandwidthSource', 'memoryBandwidthBytesPerS', 'vramBandwidthBytesPerS', 'threads', 'parallel', 'serving'],
      properties: {
        ramBytes: nint,
        vramBytes: { type: ['integer', 'null'] },
        ctx: nint,
        ubatch: nint,
        kvTypeBytes: { type: 'number' },
        prefetchDepth: nint,
        diskBandwidthBytesPerS: { type: 'number' },
        diskBandwidthSource: { type: 'string' },
        memoryBandwidthBytesPerS: { type: 'number' },
        vramBandwidthBytesPerS: { type: 'number' },
        threads: { type: ['integer', 'null'] },
        parallel: { type: 'integer', minimum: 1 },
        serving: { type: 'boolean' },
      },
    },
    layers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index', 'bytes', 'kvBytes', 'tier', 'streamedBytes'],
        properties: { index: nint, bytes: nint, kvBytes: { type: 'number' }, tier: { enum: ['vram', 'remote', 'pinned', 'streamed'] }, streamedBytes: nint },
      },
    },
    tiers: { type: 'object', additionalProperties: false, required: ['vram', 'pinned', 'streamed'], properties: { vram: tier, pinned: tier, streamed: tier, remote: tier } },
    quantities: {
      type: 'object',
      additionalProperties: false,
      required: [...QUANTITIES],
      properties: Object.fromEntries(QUANTITIES.map((k) => [k, quantity])),
    },
    stream: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['tensors', 'unitBytes', 'windowBytes', 'readaheadBytes', 'headroomBytes'],
          properties: { tensors: { type: 'array', items: { type: 'string' } }, unitBytes: nint, windowBytes: nint, readaheadBytes: nint, headroomBytes: nint },
        },
      ],
    },
    moe,
    gpu: GPU_PLAN_SCHEMA,
    remote: REMOTE_PLAN_SCHEMA,
    verdict: { enum: ['fits', 'out-of-core', 'cannot-run'] },
    reason: { type: 'string' },
    draft: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['path', 'sharedBytes', 'ownWeightBytes', 'overheadBytes', 'residentCostBytes', 'extraReadPerPassBytes', 'breakEvenTokensPerPass', 'pays', 'reason'],
          properties: {
            path: { type: 'string' },
            sharedBytes: quantity,
            ownWeightBytes: quantity,
            overheadBytes: quantity,
            residentCostBytes: quantity,
            extraReadPerPassBytes: quantity,
            breakEvenTokensPerPass: quantity,
            pays: { type: 'boolean' },
            reason: { type: 'string' },
          },
        },
      ],
    },
    notes: { type: 'array', items: { type: 'string' } },
  },
} as const;
