// Injected at bundle time by scripts/build-cli.mjs from package.json (one source of truth).
declare const __RAMFORGE_VERSION__: string;
declare const __LLAMA_CPP_TAG__: string;

export const RAMFORGE_VERSION: string = typeof __RAMFORGE_VERSION__ === 'string' ? __RAMFORGE_VERSION__ : '0.0.0-dev';
export const LLAMA_CPP_TAG: string = typeof __LLAMA_CPP_TAG__ === 'string' ? __LLAMA_CPP_TAG__ : 'unknown';
export const VERSION_LINE = `ramforge ${RAMFORGE_VERSION} (llama.cpp ${LLAMA_CPP_TAG})`;
