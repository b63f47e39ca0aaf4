// The HTTP upgrade to the API's WebSocket. Runs in the http server's 'upgrade' listener, so it
// must never throw: a throw there ends the process. Every check comes before anything parses
// the request, the checks themselves cannot throw, and a refused or malformed request gets a
// 4xx and a closed socket.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { hostAllowed, originAllowed, subprotocolCredential, targetPath, WS_PROTOCOL } from './access.js';
import type { AccessKeys } from './login.js';

function refuse(socket: Duplex, status: string): void {
  if (socket.destroyed) return;
  if (!socket.writable) return void socket.destroy();
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
}

function offersProtocol(req: IncomingMessage): boolean {
  return String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .some((p) => p.trim() === WS_PROTOCOL);
}

/** Why this upgrade request is refused (an HTTP status line), or null to accept it. */
export function upgradeRefusal(req: IncomingMessage, port: number, keys: AccessKeys): string | null {
  if (!hostAllowed(req, port)) return '403 Forbidden';
  // Browsers always send Origin on a WebSocket handshake; a page of another site or port is refused.
  if (!originAllowed(req, port, true)) return '403 Forbidden';
  if (!keys.allows(subprotocolCredential(req))) return '403 Forbidden';
  if (targetPath(req.url) !== '/api') return '404 Not Found';
  // The app's client always offers its protocol; a socket that does not speak it is not opened.
  if (!offersProtocol(req)) return '400 Bad Request';
  return null;
}

export function upgradeListener(port: () => number, keys: AccessKeys, wss: WebSocketServer): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    // Node leaves an upgrading socket without an error listener: a client reset before we
    // answer would otherwise be an uncaught 'error'. ws adds its own once it takes the socket.
    socket.on('error', () => socket.destroy());
    try {
      const refusal = upgradeRefusal(req, port(), keys);
      if (refusal) return refuse(socket, refusal);
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    } catch {
      refuse(socket, '400 Bad Request');
    }
  };
}
