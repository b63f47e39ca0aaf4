// `ramforge rpc-server`: llama.cpp's RPC server from our pinned build, so another machine's
// `--rpc` can put layers in this machine's RAM. Under `--ram SIZE --enforce-ram` it runs in its
// own memory cgroup, and its CPU device then offers the cap (less what it uses) to clients,
// which place layers within it. It binds loopback unless told otherwise: the protocol has no
// authentication, so anyone who reaches the port can allocate memory and run graphs here.
import { spawn } from 'node:child_process';
import { typedFlags, type CommandSpec, type FlagSpec, type ParsedArgs } from '../args.js';
import { EXIT, UsageError } from '../../shared/errors.js';
import { LIMITS } from '../../shared/settings/run-settings.js';
import { RPC_DEFAULT_PORT } from '../../shared/remote/rpc-endpoint.js';
import { formatBytes } from '../../shared/size.js';
import { llamaTool } from '../../node/llama-tools.js';
import { formatMemoryReport, startCapped } from '../../supervisor/index.js';
import { gpuDriverEnv } from '../../worker/gpu-drivers.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** The refusal for an address other machines can reach, without --allow-remote. */
export function remoteBindRefusal(host: string): string {
  return (
    `--host ${host} would let every machine that reaches this port use the server: llama.cpp's RPC protocol has no authentication ` +
    `(anyone connected can allocate memory here and run graphs). Bind a trusted network's address and add --allow-remote, ` +
    `or keep the default 127.0.0.1 and reach it through an SSH tunnel.`
  );
}

/** rpc-server's flags (its --ram and --enforce-ram are its own: the cap a node offers, not a run's budget). */
const RPC_SERVER_FLAGS = [
    { name: 'host', short: 'H', type: 'string', default: '127.0.0.1', description: 'address to bind (another than loopback needs --allow-remote)' },
    { name: 'port', short: 'p', type: 'int', default: RPC_DEFAULT_PORT, range: { min: 1, max: 65535 }, description: 'port to listen on' },
    { name: 'allow-remote', type: 'boolean', description: 'allow --host to name an address other machines reach (trusted networks only: no authentication)' },
    { name: 'ram', type: 'size', description: 'the memory this node offers, held as a hard cap (needs --enforce-ram)' },
    { name: 'enforce-ram', type: 'boolean', description: 'hold the server to --ram with a kernel memory cgroup; clients see the cap as its memory' },
    { name: 'enforce-timeout', type: 'number', valueName: 'SECONDS', range: LIMITS.timeoutS, description: 'with --enforce-ram: stop the server after this long (exit 124; default: no limit)' },
    { name: 'memory-report', type: 'boolean', description: 'print the cgroup figures (limit, peak, limit hits, OOM kills) on stderr when it stops' },
    { name: 'cache', short: 'c', type: 'boolean', description: "keep received tensors in llama.cpp's local file cache, so a client's next load does not send them again" },
    { name: 'threads', short: 't', type: 'int', range: LIMITS.threads, description: 'CPU threads for the graphs it computes (default: llama.cpp’s)' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'rpc-server',
  summary: "Serve this machine's RAM to other machines' `--rpc` (llama.cpp's RPC server, optionally under a hard cap).",
  positionals: [],
  flags: [...RPC_SERVER_FLAGS],
  details: [
    'Examples:',
    '  ramforge rpc-server --ram 8G --enforce-ram            # on each machine that lends its RAM',
    '  ramforge rpc-server --host 192.168.1.20 --allow-remote --ram 8G --enforce-ram',
    '  ramforge run big.gguf -p "Hi" --ram 8G --enforce-ram --rpc 192.168.1.20:50052,192.168.1.21:50052',
    '',
    'Exit codes as for run: 137 when the cap killed it, 124 after --enforce-timeout, 2 for bad flags.',
  ].join('\n'),
  async run(args: ParsedArgs): Promise<number> {
    const f = typedFlags(args.flags, RPC_SERVER_FLAGS);
    const host = f.host;
    if (!LOOPBACK.has(host) && !f['allow-remote']) throw new UsageError(remoteBindRefusal(host));
    const ram = f.ram;
    if (ram !== undefined && !f['enforce-ram']) throw new UsageError('--ram on an RPC server is the cap it offers: add --enforce-ram (without a cap it offers the whole machine, as llama.cpp does)');
    if (f['enforce-ram'] && ram === undefined) throw new UsageError('--enforce-ram needs --ram SIZE');
    if (f['enforce-timeout'] !== undefined && !f['enforce-ram']) throw new UsageError('--enforce-timeout needs --enforce-ram');
    const bin = llamaTool('ggml-rpc-server', (line) => process.stderr.write(`ramforge rpc-server: ${line}\n`));
    const argv = ['-H', host, '-p', String(f.port), ...(f.cache ? ['-c'] : []), ...(f.threads !== undefined ? ['-t', String(f.threads)] : [])];
    // The server computes on its CPU: no GPU drivers in its memory.
    const env = { ...process.env, ...gpuDriverEnv(false) };
    if (ram === undefined) return runPlain(bin, argv, env);
    // A server runs until stopped: SIGINT/SIGTERM stop it here, so the group's figures are still printed.
    const run = startCapped({ limitBytes: ram, timeoutS: f['enforce-timeout'] ?? null, command: bin, args: argv, env, stdio: ['ignore', 'inherit', 'inherit'], handleSignals: false });
    let stopped: string | null = null;
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.once(sig, () => {
        stopped = sig;
        run.kill(`stopped by ${sig}`);
      });
    process.stderr.write(`ramforge rpc-server: capped at ${formatBytes(ram)} (${ram} bytes) in ${run.cgroupPath}\n`);
    const o = await run.done;
    if (f['memory-report']) process.stderr.write(formatMemoryReport(o));
    if (stopped) return EXIT.ok;
    if (o.status !== 'ok') process.stderr.write(`ramforge rpc-server: ${o.message}\n`);
    return o.exitCode;
  },
};

function runPlain(bin: string, argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(bin, argv, { env, stdio: ['ignore', 'inherit', 'inherit'] });
    const stop = () => child.kill('SIGTERM');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    child.on('error', (e) => {
      process.stderr.write(`ramforge rpc-server: ${e.message}\n`);
      resolve(EXIT.failure);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal === 'SIGTERM' || signal === 'SIGINT' ? EXIT.ok : EXIT.failure)));
  });
}
