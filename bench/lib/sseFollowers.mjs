/**
 * N server-sent-event streams in a process of their own, so that reading
 * them does not load the server's process: `node sseFollowers.mjs <url>
 * <key> <n>`. Prints `ready` once every stream has its first event; records
 * when each `rows` event arrives (epoch milliseconds, sub-millisecond) for
 * every block it completes; when stdin ends, prints one JSON line
 * `{"arrivals": [[stream, block, ms], ...], "refused": k}` and exits.
 */
import http from 'node:http';

const [url, key, count] = process.argv.slice(2);
const n = Number(count);
const now = () => performance.timeOrigin + performance.now();
const arrivals = [];
const requests = [];
let first = 0;
let refused = 0;
const settled = () => {
  if (first + refused === n) process.stdout.write(`ready ${first}\n`);
};

for (let i = 0; i < n; i++) {
  const req = http.get(url, { headers: { 'x-api-key': key }, agent: false }, (res) => {
    if (res.statusCode !== 200) {
      refused++;
      res.resume();
      settled();
      return;
    }
    res.setEncoding('utf8');
    let buffer = '';
    let seen = false;
    res.on('data', (chunk) => {
      const at = now();
      buffer += chunk;
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!seen) {
          seen = true;
          first++;
          settled();
        }
        if (!event.startsWith('event: rows')) continue;
        const from = Number(/"from_block":(\d+)/.exec(event)?.[1]);
        const to = Number(/"to_block":(\d+)/.exec(event)?.[1]);
        for (let b = from; b <= to; b++) arrivals.push([i, b, at]);
      }
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => {
    refused++;
    settled();
  });
  requests.push(req);
}

process.stdin.resume();
process.stdin.on('end', () => {
  for (const r of requests) r.destroy();
  process.stdout.write(`${JSON.stringify({ arrivals, refused })}\n`, () => process.exit(0));
});
