// The version identity is shared (reports carry it); the CLI prints it.
export { LLAMA_CPP_TAG, RAMFORGE_VERSION, VERSION_LINE } from '../shared/version.js';
