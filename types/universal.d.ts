// The web-platform classes that Node and browsers both provide, which pure code may use. Pure
// code is compiled without Node's types and without the DOM's (tsconfig.shared.json), so that
// neither can creep in; these few are declared here, as much of them as the code uses.
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
}
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
declare class URLSearchParams {
  get(name: string): string | null;
  has(name: string): boolean;
}
declare class URL {
  constructor(url: string, base?: string | URL);
  href: string;
  origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  hash: string;
  readonly searchParams: URLSearchParams;
  toString(): string;
}
/** Opaque here: a dropped file, handled by the preload and the renderer. */
declare class Blob {
  readonly size: number;
}
