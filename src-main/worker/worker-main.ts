// Entry of the inference worker process. It owns the native addon; the host talks to it only
// through the typed protocol in shared/worker-protocol.ts. If llama.cpp aborts, this process
// dies and the host reports it; nothing propagates into the UI or the CLI's own process.
import { openChannel } from './channel.js';
import { Engine } from './engine.js';
import { WorkerError } from './worker-error.js';
import type { WorkerRequest } from '../shared/worker-protocol.js';
import { loadAddon } from '../native/addon.js';
import { RPC_HEARTBEAT_MS } from '../shared/settings/run-settings.js';

/** How often the worker looks whether its host is still its parent. */
const PARENT_CHECK_MS = 1000;

const channel = openChannel();
const engine = new Engine();
let queue: Promise<unknown> = Promise.resolve();

function fail(id: number, e: unknown): void {
  const code = e instanceof WorkerError ? e.code : ((e as { code?: string })?.code ?? 'ERROR');
  channel.send({ type: 'result', id, ok: false, error: { code, message: (e as Error)?.message ?? String(e) } });
}

async function handle(req: Exclude<WorkerRequest, { type: 'cancel' } | { type: 'shutdown' }>): Promise<void> {
  const id = req.id;
  try {
    let value: unknown;
    switch (req.type) {
      case 'load':
        value = await engine.load(req.params, (fraction) => channel.send({ type: 'progress', id, fraction }));
        engine.residency?.onSample((sample) => channel.send({ type: 'sample', sample }));
        engine.onStep = (e) => channel.send({ type: 'serve-step', step: { sequences: e.sequences, tokens: e.tokens, decoded: e.decoded, ms: e.ms } });
        // Where every layer stands right after load (the dashboard's first column).
        engine.residency?.sample('load', null, true);
        break;
      case 'generate': {
        // The decode runs off this thread: with layers on RPC nodes, the host sees its counters
        // between tokens too, and can tell a frozen node from a slow step (RPC_STEP_* in settings).
        const r = engine.residency;
        const beat = r?.onRpcNodes ? setInterval(() => r.heartbeat(), RPC_HEARTBEAT_MS) : null;
        try {
          value = await engine.generate(req.params, (token) => channel.send({ type: 'token', id, token }), id);
        } finally {
          if (beat) clearInterval(beat);
        }
        if (engine.residency) {
          (value as { residency?: unknown }).residency = {
            policy: engine.residency.policy,
            tiers: engine.residency.tiers,
            inventory: engine.residency.inventory,
            counters: engine.residency.counters,
            finalResident: engine.residency.residentNow(),
            rows: engine.residency.rowSpecs,
            graphTrace: engine.residency.graphTrace,
            profileNote: engine.residency.profileNote,
            manualActions: engine.residency.manualActions,
          };
        }
        break;
      }
      case 'embed':
        value = await engine.embed(req.texts, req.truncate === true, req.pooling ?? 'mean');
        break;
      case 'tokenize': {
        const tokens = engine.tokenize(req.text, req.addSpecial, req.parseSpecial);
        value = { tokens, pieces: engine.pieces(tokens) };
        break;
      }
      case 'detokenize':
        value = { text: engine.detokenize(req.tokens, req.special === true) };
        break;
      case 'apply-template':
        value = await engine.chatPrompt(req.params);
        break;
      case 'agreement':
        value = engine.agreement(req.prompt, req.continuation);
        break;
      case 'probe-disk':
        value = await loadAddon().measureRead(req.path, {
          bytes: req.bytes,
          offset: req.offset ?? 0,
          ...(req.chunkBytes !== undefined ? { chunkBytes: req.chunkBytes } : {}),
          ...(req.threads !== undefined ? { threads: req.threads } : {}),
          ...(req.scatter ? { scatter: true } : {}),
        });
        break;
    }
    channel.send({ type: 'result', id, ok: true, value });
  } catch (e) {
    fail(id, e);
  }
}

channel.onRequest((req) => {
  if (req.type === 'cancel') {
    engine.cancel(req.target);
    return;
  }
  if (req.type === 'shutdown') {
    engine.cancel();
    void queue.finally(async () => {
      await engine.unload();
      process.exit(0);
    });
    return;
  }
  // Requests decoded together run concurrently (the batch server orders them); everything else
  // one operation at a time, in order; cancel and shutdown jump the queue.
  if (req.type === 'generate' && engine.parallel > 1) {
    void queue.then(() => handle(req));
    return;
  }
  queue = queue.then(() => handle(req));
});
// A host that is gone (killed, even with SIGKILL) closes the IPC channel; nothing would ever
// ask this worker for anything again. Where no disconnect can be seen (the host's end kept open
// by someone else), being handed to another parent says the same.
channel.onDisconnect(() => process.exit(0));
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, PARENT_CHECK_MS).unref();
channel.send({ type: 'ready', pid: process.pid });
