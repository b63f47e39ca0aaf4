// Asks a llama.cpp RPC server what it is and what memory it offers, before anything is loaded:
// an unreachable node, a node of another protocol version or something that is not an RPC
// server is a clear error here, where ggml's own client would abort the process that holds it.
//
// The wire format is ggml-rpc's: a request is | command (1 byte) | size (u64 LE) | data |, a
// reply | size (u64 LE) | data |. HELLO (14) carries 24 bytes of transport capabilities each
// way (all zero: plain TCP) and answers | major | minor | patch | pad | caps |.
import { connect, type Socket } from 'node:net';
import { parseEndpoint, RPC_PROTOCOL, type RpcNodeInfo } from '../shared/remote/rpc-endpoint.js';

const CMD_GET_DEVICE_MEMORY = 11;
const CMD_HELLO = 14;
const CMD_DEVICE_COUNT = 15;
const CAPS_BYTES = 24;

export class RpcNodeError extends Error {
  constructor(
    readonly endpoint: string,
    why: string,
  ) {
    super(`RPC node ${endpoint}: ${why}`);
    this.name = 'RpcNodeError';
  }
}

/** Reads exactly the replies asked for, in order, from one socket. */
class Replies {
  private buf = Buffer.alloc(0);
  private waiting: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  private failed: Error | null = null;

  constructor(sock: Socket) {
    sock.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.pump();
    });
    const fail = (e: Error) => {
      this.failed ??= e;
      const w = this.waiting;
      this.waiting = null;
      w?.reject(this.failed);
    };
    sock.on('error', fail);
    sock.on('close', () => fail(new Error('the connection was closed')));
  }

  take(n: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting = { n, resolve, reject };
      this.pump();
      if (this.waiting && this.failed) reject(this.failed);
    });
  }

  private pump(): void {
    const w = this.waiting;
    if (!w || this.buf.length < w.n) return;
    this.waiting = null;
    const out = this.buf.subarray(0, w.n);
    this.buf = this.buf.subarray(w.n);
    w.resolve(out);
  }
}

function request(cmd: number, data: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUInt8(cmd, 0);
  head.writeBigUInt64LE(BigInt(data.length), 1);
  return Buffer.concat([head, data]);
}

async function reply(r: Replies, size: number, what: string): Promise<Buffer> {
  const n = Number((await r.take(8)).readBigUInt64LE(0));
  if (n !== size) throw new Error(`not llama.cpp's RPC protocol ${RPC_PROTOCOL.major}.x (${what} reply of ${n} bytes, expected ${size})`);
  return r.take(size);
}

/** Handshake, device count and the first device's memory, within `timeoutMs`. */
export async function probeRpcNode(endpoint: string, timeoutMs = 5000): Promise<RpcNodeInfo> {
  const { host, port } = parseEndpoint(endpoint);
  const sock = connect({ host, port });
  const replies = new Replies(sock);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s (stopped or frozen, busy with another client, or not an RPC server)`)), timeoutMs);
  });
  const talk = async (): Promise<RpcNodeInfo> => {
    await new Promise<void>((resolve, reject) => {
      sock.once('connect', resolve);
      sock.once('error', reject);
    });
    sock.write(request(CMD_HELLO, Buffer.alloc(CAPS_BYTES)));
    const hello = await reply(replies, 4 + CAPS_BYTES, 'handshake');
    const version = { major: hello.readUInt8(0), minor: hello.readUInt8(1), patch: hello.readUInt8(2) };
    if (version.major !== RPC_PROTOCOL.major || version.minor > RPC_PROTOCOL.minor) {
      const v = (x: typeof version) => `${x.major}.${x.minor}.${x.patch}`;
      throw new Error(`it speaks RPC protocol ${v(version)}, this build ${v(RPC_PROTOCOL)}: run the same llama.cpp version on every node`);
    }
    sock.write(request(CMD_DEVICE_COUNT, Buffer.alloc(0)));
    const devices = (await reply(replies, 4, 'device count')).readUInt32LE(0);
    if (devices === 0) throw new Error('it offers no devices');
    const dev = Buffer.alloc(4);
    sock.write(request(CMD_GET_DEVICE_MEMORY, dev));
    const mem = await reply(replies, 16, 'device memory');
    return { endpoint, version, devices, freeBytes: Number(mem.readBigUInt64LE(0)), totalBytes: Number(mem.readBigUInt64LE(8)) };
  };
  try {
    return await Promise.race([talk(), timeout]);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ECONNREFUSED' ? 'connection refused (is `ramforge rpc-server` running there?)' : err.message;
    throw new RpcNodeError(endpoint, why);
  } finally {
    clearTimeout(timer);
    sock.destroy();
  }
}

/** Every node, in order; the first that fails ends it with its error. */
export async function probeRpcNodes(endpoints: readonly string[]): Promise<RpcNodeInfo[]> {
  const out: RpcNodeInfo[] = [];
  for (const ep of endpoints) out.push(await probeRpcNode(ep));
  return out;
}

/**
 * After a run that offloaded to these nodes failed: the nodes that no longer answer, each with
 * why (ggml's client aborts the worker when a node goes away, without naming it).
 */
export async function lostRpcNodes(endpoints: readonly string[], timeoutMs = 1500): Promise<RpcNodeError[]> {
  const lost: RpcNodeError[] = [];
  for (const ep of endpoints) {
    try {
      await probeRpcNode(ep, timeoutMs);
    } catch (e) {
      if (e instanceof RpcNodeError) lost.push(e);
      else throw e;
    }
  }
  return lost;
}
