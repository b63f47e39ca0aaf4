// Errors of the GGUF reader. Every rejection of a file names the problem and the byte offset
// where it was found, so a user (and a test) can see exactly what is wrong with the file.

export type GgufErrorCode =
  | 'BAD_MAGIC'
  | 'BAD_VERSION'
  | 'TRUNCATED'
  | 'TENSOR_COUNT'
  | 'KV_COUNT'
  | 'STRING_TOO_LONG'
  | 'ARRAY_TOO_LONG'
  | 'ARRAY_TOO_DEEP'
  | 'BAD_VALUE_TYPE'
  | 'EMPTY_KEY'
  | 'DUPLICATE_KEY'
  | 'BAD_ALIGNMENT'
  | 'TENSOR_NAME'
  | 'DUPLICATE_TENSOR'
  | 'BAD_DIMS'
  | 'BAD_DIM'
  | 'ELEMENT_OVERFLOW'
  | 'UNKNOWN_TENSOR_TYPE'
  | 'ROW_NOT_BLOCK_MULTIPLE'
  | 'TENSOR_MISALIGNED'
  | 'TENSOR_OVERLAP'
  | 'TENSOR_ORDER'
  | 'TENSOR_GAP'
  | 'DATA_BEYOND_EOF'
  | 'HEADER_TOO_LARGE'
  | 'BAD_METADATA'
  | 'BLOCK_COUNT'
  | 'MISSING_TENSOR'
  | 'SPLIT'
  | 'AMBIGUOUS_DIRECTORY'
  | 'NO_MODEL';

export class GgufError extends Error {
  constructor(
    readonly code: GgufErrorCode,
    /** What is wrong, in words; the offset is appended to `message`. */
    readonly detail: string,
    /** Absolute byte offset in the file where the problem was found (null: not tied to one byte). */
    readonly offset: number | null,
    /** The file, when known (filled in by the I/O edge). */
    readonly file?: string,
  ) {
    super(`${file ? `${file}: ` : ''}${detail}${offset === null ? '' : ` (at byte offset ${offset})`}`);
    this.name = 'GgufError';
  }

  withFile(file: string): GgufError {
    return this.file ? this : new GgufError(this.code, this.detail, this.offset, file);
  }
}

/**
 * Not an error in the file: the parser was given a prefix of the file and needs at least
 * `needed` bytes of it to go on. The I/O edge reads a longer prefix and parses again.
 */
export class GgufNeedMoreBytes extends Error {
  constructor(readonly needed: number) {
    super(`GGUF header needs at least ${needed} bytes of the file`);
    this.name = 'GgufNeedMoreBytes';
  }
}
