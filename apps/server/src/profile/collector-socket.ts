import { chmod } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import process from 'node:process';
import type { Duplex } from 'node:stream';
import type { ProfileHub } from './profile-hub.ts';
import { profilePath } from './profile-protocol.ts';

/**
 * Serves the collector channel on a Unix socket only this user can open (mode 0600 from the
 * moment bind creates it): the server's in its data folder, or the CLI's own when it runs alone.
 */
export async function openCollectorSocket(hub: ProfileHub, socketPath: string): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== profilePath) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    hub.handleUpgrade(request, socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // bind creates the file inside listen: a umask of 0177 makes it 0600 from its first moment,
    // and chmod makes sure where a file system ignores the umask.
    const umask = process.umask(0o177);
    try {
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
  await chmod(socketPath, 0o600);
  return server;
}

/** Closes a collector socket's server and every connection it holds. */
export function closeCollectorSocket(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Whether something answers on a Unix socket path (a live server, not a stale file). */
export function socketAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
