/**
 * An HTTP proxy in front of a real node that misbehaves on purpose: a test
 * decides, per JSON-RPC request body, whether to answer with a fault (a status,
 * an error body) or to forward to the node. Every body it receives is recorded.
 * It can also die like a node (kill: every open connection cut, new ones
 * refused) and come back on the same port (revive), and stand for a node of
 * limited speed (latencyMs added to each request, one request at a time).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Fault {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  /** Sent as JSON. */
  readonly body: unknown;
}

/** Forwards to the node, but the answer breaks off after this many bytes (the connection is destroyed). */
export interface Cut {
  readonly cutAfter: number;
}

/** Forwards to the node and answers with what `rewrite` makes of its parsed answer (a node that lies about its data). */
export interface Rewrite {
  readonly rewrite: (answer: unknown) => unknown;
}

export type FaultRule = (request: unknown, index: number) => Fault | Cut | Rewrite | null;

export interface FaultyProxy {
  readonly url: string;
  /** Every request body received, parsed. */
  readonly requests: unknown[];
  rule: FaultRule;
  /** The node dies: open connections are cut, requests in flight get no answer, new connections are refused. */
  kill(): Promise<void>;
  /** The node is back, on the same port. */
  revive(): Promise<void>;
  close(): Promise<void>;
}

export interface ProxyPace {
  /** Added to every request before it is forwarded. */
  readonly latencyMs: number;
  /** Requests are served one after another, as by a node of fixed throughput. */
  readonly serial?: boolean;
}

export async function startFaultyProxy(target: string, rule: FaultRule = () => null, pace?: ProxyPace): Promise<FaultyProxy> {
  const requests: unknown[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let port = 0;
  let queue: Promise<void> = Promise.resolve();
  // Set by kill: a request whose body had arrived when the node died is cut, never seen (nor counted) by the node.
  let dead = false;
  const listen = () =>
    new Promise<void>((resolve) => {
      dead = false;
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const proxy: FaultyProxy = {
    url: '',
    requests,
    rule,
    async kill() {
      dead = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      sockets.clear();
      await closed;
    },
    revive: listen,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
  /** Holds a request for the pace's latency, in turn with the others when serial. */
  const paced = async () => {
    if (!pace) return;
    const wait = () => new Promise<void>((resolve) => setTimeout(resolve, pace.latencyMs));
    if (!pace.serial) return wait();
    const mine = queue.then(wait);
    queue = mine;
    return mine;
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => {
      raw += d.toString();
    });
    req.on('end', async () => {
      await paced();
      if (dead) {
        res.destroy();
        return;
      }
      if (res.destroyed) return;
      const body = JSON.parse(raw) as unknown;
      const index = requests.push(body) - 1;
      const fault = proxy.rule(body, index);
      if (fault && 'cutAfter' in fault) {
        const upstream = Buffer.from(await (await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw })).arrayBuffer());
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(upstream.length) });
        res.write(upstream.subarray(0, fault.cutAfter), () => res.destroy());
        return;
      }
      if (fault && 'rewrite' in fault) {
        const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
        res.writeHead(upstream.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(fault.rewrite(await upstream.json())));
        return;
      }
      if (fault) {
        res.writeHead(fault.status ?? 200, { 'content-type': 'application/json', ...fault.headers });
        res.end(JSON.stringify(fault.body));
        return;
      }
      const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw }).catch(() => null);
      if (res.destroyed) return;
      if (!upstream) {
        res.destroy();
        return;
      }
      const text = await upstream.text();
      if (res.destroyed) return;
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 1000;
  await listen();
  port = (server.address() as AddressInfo).port;
  (proxy as { url: string }).url = `http://127.0.0.1:${port}`;
  return proxy;
}
