/**
 * The least a server can do to answer with bytes the engine already wrote: a
 * bare Node HTTP server sending them from memory to the client, in the
 * slices a stream would, no engine, no file reads, no framework, no metering. The serve-erc20 scenario measures its CPU beside
 * chainq's to show how much of a large export's time is delivering bytes.
 * Plain JavaScript, so that it runs without the TypeScript loader.
 *
 * Usage: node deliveryServer.mjs FILE... ; GET /<i> sends the i-th file's bytes.
 * Prints the URL once it listens.
 */
import fs from 'node:fs';
import http from 'node:http';

const SLICE = 256 * 1024;
const bodies = process.argv.slice(2).map((f) => fs.readFileSync(f));
const server = http.createServer((req, res) => {
  const body = bodies[Number(req.url?.slice(1))];
  if (!body) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  let at = 0;
  const send = () => {
    while (at < body.length) {
      const slice = body.subarray(at, at + SLICE);
      at += slice.length;
      if (!res.write(slice)) {
        res.once('drain', send);
        return;
      }
    }
    res.end();
  };
  send();
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
