// `ramforge rpc-server` nodes on loopback for a test, each under an enforced cap, started through
// the CLI as a user starts them, and stopped (SIGTERM) after it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { CLI } from './env.js';

export interface RpcNode {
  endpoint: string;
  child: ChildProcess;
  /** SIGKILL to llama.cpp's server process itself: the node vanishes as a machine that loses power does. */
  killServer(): void;
  /** SIGSTOP / SIGCONT to the server process: frozen, its kernel still answers TCP (keepalive, ACKs). */
  freezeServer(): void;
  thawServer(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function answers(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const c = connect({ host: '127.0.0.1', port }, () => (c.destroy(), resolve(true)));
    c.on('error', () => resolve(false));
  });
}

/** llama.cpp's server processes listening on this port (the node's own, under its supervisor). */
function serverPids(port: number): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number)) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd[0]?.endsWith('ggml-rpc-server') && cmd.includes(String(port))) out.push(pid);
    } catch {
      /* gone */
    }
  }
  return out;
}

export async function startRpcNode(ramBytes: number): Promise<RpcNode> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'rpc-server', '--port', String(port), '--ram', String(ramBytes), '--enforce-ram'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  for (let i = 0; !(await answers(port)); i++) {
    if (i > 150 || child.exitCode !== null) throw new Error(`rpc-server on port ${port} did not start:\n${err}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    endpoint: `127.0.0.1:${port}`,
    child,
    killServer() {
      for (const pid of serverPids(port)) process.kill(pid, 'SIGKILL');
    },
    freezeServer() {
      for (const pid of serverPids(port)) process.kill(pid, 'SIGSTOP');
    },
    thawServer() {
      for (const pid of serverPids(port)) process.kill(pid, 'SIGCONT');
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
