// The synthetic-model API the CLI and the app use.
export { synthesize, type SynthOptions, type SynthResult, type SynthTensor } from './synthesize.js';
export { ARCHS, PRESETS, WEIGHT_TYPES, SynthInputError, type ArchName, type PresetName, type WeightType, type ModelShape, type ShapeOverrides } from './shape.js';
export { defaultVocab } from './presets.js';
export { progressBar } from './progress-bar.js';
