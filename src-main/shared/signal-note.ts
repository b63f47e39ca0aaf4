// What a fatal signal that ended the inference worker usually means, for the one line a user
// reads: the host and the supervisor name the signal, this says why it may have come. Pure.

export function signalNote(signal: string | null): string {
  switch (signal) {
    case 'SIGBUS':
      return ' (a memory-mapped file it was reading, the model, was truncated or its storage failed)';
    case 'SIGABRT':
      return ' (llama.cpp aborted on an internal check)';
    default:
      return '';
  }
}
