import process from 'node:process';
import { createInterface } from 'node:readline';
import { WebSocket } from 'ws';

// For `pnpm bench live-stored-memory`: opens N sockets to /api/live that subscribe to one run
// and never read a byte. Prints {"open": N} once all are subscribed; a `close` line on stdin
// terminates them all (printing {"closed": N}); stops when stdin closes.
const { port, runId, clients } = JSON.parse(process.argv[2] ?? '{}') as {
  port: number;
  runId: string;
  clients: number;
};
const sockets: WebSocket[] = [];
for (let i = 0; i < clients; i++) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/api/live`);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  // ws has no pause of its own: pausing the TCP socket under it stops all reading.
  (socket as unknown as { _socket: { pause(): void } })._socket.pause();
  socket.send(JSON.stringify({ type: 'subscribe', runId }));
  sockets.push(socket);
}
process.stdout.write(`${JSON.stringify({ open: sockets.length })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line === 'close') {
    sockets.forEach((s) => s.terminate());
    process.stdout.write(`${JSON.stringify({ closed: sockets.length })}\n`);
  }
});
lines.on('close', () => {
  sockets.forEach((s) => s.terminate());
  process.exit(0);
});
