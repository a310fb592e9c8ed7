/**
 * An HTTP proxy in front of a real node that misbehaves on purpose: a test
 * decides, per JSON-RPC request body, whether to answer with a fault (a status,
 * an error body) or to forward to the node. Every body it receives is recorded.
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
  close(): Promise<void>;
}

export async function startFaultyProxy(target: string, rule: FaultRule = () => null): Promise<FaultyProxy> {
  const requests: unknown[] = [];
  const proxy: FaultyProxy = {
    url: '',
    requests,
    rule,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => {
      raw += d.toString();
    });
    req.on('end', async () => {
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
      const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(await upstream.text());
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  (proxy as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
