import { afterEach, describe, expect, it } from 'vitest';
import { parseArgs } from '../args.js';
import { UsageError } from '../errors.js';
import { command } from './serve.js';
import { serveApiFlags } from './serve-api-flags.js';

const flags = (argv: string[]) => parseArgs(argv, command).flags;
const envKey = process.env.RAMFORGE_API_KEY;

afterEach(() => {
  if (envKey === undefined) delete process.env.RAMFORGE_API_KEY;
  else process.env.RAMFORGE_API_KEY = envKey;
});

describe('serve --api flags', () => {
  it('without --api: no API, and its own flags are refused', () => {
    expect(serveApiFlags(flags([]), 0)).toBeNull();
    expect(() => serveApiFlags(flags(['--no-ui']), 0)).toThrow(UsageError);
    expect(() => serveApiFlags(flags(['--api-key', 'k']), 0)).toThrow(/needs --api/);
  });

  it("defaults: loopback, llama-server's port, the UI as well, a queue of 16, no key", () => {
    delete process.env.RAMFORGE_API_KEY;
    expect(serveApiFlags(flags(['--api']), 0)).toEqual({ host: '127.0.0.1', port: 8080, loopback: true, apiKey: null, queue: 16, ui: true });
  });

  it('the key from --api-key, else RAMFORGE_API_KEY (empty means none); other hosts are not loopback', () => {
    process.env.RAMFORGE_API_KEY = 'from-env';
    expect(serveApiFlags(flags(['--api']), 0)?.apiKey).toBe('from-env');
    expect(serveApiFlags(flags(['--api', '--api-key', 'flag']), 0)?.apiKey).toBe('flag');
    process.env.RAMFORGE_API_KEY = '';
    expect(serveApiFlags(flags(['--api']), 0)?.apiKey).toBeNull();
    expect(serveApiFlags(flags(['--api', '--api-host', '0.0.0.0', '--no-ui']), 0)).toMatchObject({ loopback: false, ui: false });
  });

  it('refuses the UI port as the API port, keys with spaces, odd hosts, ports and queues out of range', () => {
    expect(() => serveApiFlags(flags(['--api', '--port', '9000', '--api-port', '9000']), 9000)).toThrow(/also the UI's --port/);
    expect(() => serveApiFlags(flags(['--api', '--api-key', 'a b']), 0)).toThrow(/printable/);
    expect(() => serveApiFlags(flags(['--api', '--api-host', 'a/b']), 0)).toThrow(/--api-host/);
    expect(() => flags(['--api', '--api-port', '70000'])).toThrow(UsageError);
    expect(() => flags(['--api', '--api-queue', '-1'])).toThrow(UsageError);
    expect(() => flags(['--api', '--parallel', '0'])).toThrow(UsageError);
  });
});
