// A loopback port free now, for the servers the scripts start (a fixed one such as llama-server's
// 8080 may be in use).
import { createServer } from 'node:net';

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
