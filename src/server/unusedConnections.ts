/**
 * Connections that have not sent a request yet. Node counts such a
 * connection busy (its header timeout runs from the connect), so
 * `closeIdleConnections` leaves it, and a closing server would wait up to
 * that timeout (a minute or more) for a client that only opened a socket:
 * an HTTP client's spare connection, a load balancer's probe. Nothing is in
 * flight on one, so a shutdown may close it at once.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface UnusedConnections {
  /** Destroys every connection that has not sent a request yet. */
  close(): void;
}

export function trackUnusedConnections(server: Server): UnusedConnections {
  const unused = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  server.on('request', (request: { socket: Socket }) => unused.delete(request.socket));
  return {
    close() {
      for (const socket of unused) socket.destroy();
      unused.clear();
    },
  };
}
