/**
 * An HTTP proxy in front of a real chainq server that drops stream
 * connections on purpose: every request is passed through as it streams, and
 * when `cutAfterRows` is set, the next stream answer (a `/stream` path) is cut
 * off (its connection closed mid-body, as a lost network would) right after its n-th
 * complete `rows` event, with the start of the following event sent, so that
 * a client must also drop a partial event. Started with `cutFreshStreams`,
 * every stream request without Last-Event-ID is cut so (for a client in
 * another process). Each request's path and Last-Event-ID is recorded, and the
 * id of the last event a cut answer did deliver.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  readonly url: string;
  readonly lastEventId: string | null;
}

export interface SseProxy {
  readonly url: string;
  readonly requests: ProxiedRequest[];
  /** Cut the next stream answer after this many complete rows events (then reset to null). */
  cutAfterRows: number | null;
  /** The id of the last complete event the cut answer delivered before it broke off. */
  lastIdBeforeCut: string | null;
  close(): Promise<void>;
}

const FORWARDED = ['x-api-key', 'last-event-id', 'accept'];

export async function startSseProxy(target: string, opts: { cutFreshStreams?: number } = {}): Promise<SseProxy> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(async (req, res) => {
    const lastEventId = req.headers['last-event-id'];
    proxy.requests.push({ url: req.url ?? '/', lastEventId: typeof lastEventId === 'string' ? lastEventId : null });
    const headers: Record<string, string> = {};
    for (const h of FORWARDED) {
      const v = req.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const upstream = await fetch(target + (req.url ?? '/'), { headers, signal: abort.signal }).catch(() => null);
    if (!upstream?.body) {
      res.destroy();
      return;
    }
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'content-encoding') out[k] = v;
    });
    res.writeHead(upstream.status, out);
    const isStream = (req.url ?? '').split('?')[0]!.endsWith('/stream');
    const fresh = typeof lastEventId !== 'string' && !/[?&]cursor=/.test(req.url ?? '');
    const cutAfter = isStream && upstream.ok ? (proxy.cutAfterRows ?? (fresh ? (opts.cutFreshStreams ?? null) : null)) : null;
    if (proxy.cutAfterRows !== null && isStream) proxy.cutAfterRows = null;
    let text = '';
    let rows = 0;
    let sent = 0;
    try {
      for await (const chunk of upstream.body) {
        if (cutAfter === null) {
          res.write(chunk);
          continue;
        }
        text += Buffer.from(chunk).toString('utf8');
        // Whole events only, up to the cut; then a few bytes of the next one and the connection dies.
        for (let end = text.indexOf('\n\n', sent); end !== -1; end = text.indexOf('\n\n', sent)) {
          const event = text.slice(sent, end + 2);
          res.write(event);
          sent = end + 2;
          const id = /^id: ?(.*)$/m.exec(event)?.[1];
          if (id !== undefined) proxy.lastIdBeforeCut = id;
          if (/^event: ?rows$/m.test(event) && ++rows === cutAfter) {
            // The connection dies a moment after those bytes went out, so that they are read first: an HTTP stack
            // drops what it had received but not yet handed over when the connection breaks under it.
            res.write(text.slice(sent, sent + 12) || 'event: ro', () => setTimeout(() => res.destroy(), 200));
            return;
          }
        }
      }
      res.end();
    } catch {
      // The upstream broke, or the client left (its close aborted the upstream).
      res.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const proxy: SseProxy = {
    url: '',
    requests: [],
    cutAfterRows: null,
    lastIdBeforeCut: null,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  (proxy as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
