/**
 * The least a server can do to answer with bytes the engine already wrote: a
 * bare Node HTTP server sending them from memory to the client, in the
 * slices a stream would, no engine, no file reads, no framework, no metering. The serve-erc20 scenario measures its CPU beside
 * chainq's to show how much of a large export's time is delivering bytes.
 * Plain JavaScript, so that it runs without the TypeScript loader.
 *
 * Usage: node deliveryServer.mjs FILE... ; GET /<i> sends the i-th file's bytes.
 * GET /pipe/<i> sends them as they come out of a fifo that `dd` writes in
 * 2 MiB writes (as the engine's COPY writes its export), read through a
 * non-blocking socket and handed on in the pipe's own reads, as chainq reads
 * an export: the delivery floor of the pipe design (the writer's CPU is dd's,
 * outside this process, as the engine's write calls are the engine's).
 * Prints the URL once it listens.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const SLICE = 256 * 1024;
const files = process.argv.slice(2);
const bodies = files.map((f) => fs.readFileSync(f));
const fifoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-delivery-'));
let fifos = 0;
function fromPipe(file, res) {
  const fifo = path.join(fifoDir, String(fifos++));
  execFileSync('mkfifo', ['-m', '600', fifo]);
  const source = new net.Socket({ fd: fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), readable: true, writable: false });
  spawn('dd', [`if=${file}`, `of=${fifo}`, 'bs=2M', 'status=none'], { stdio: 'ignore' });
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  source.pipe(res);
  source.on('end', () => fs.rmSync(fifo, { force: true }));
}
const server = http.createServer((req, res) => {
  const pipe = /^\/pipe\/(\d+)$/.exec(req.url ?? '');
  if (pipe && files[Number(pipe[1])]) {
    fromPipe(files[Number(pipe[1])], res);
    return;
  }
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
process.on('SIGTERM', () => {
  fs.rmSync(fifoDir, { recursive: true, force: true });
  server.close(() => process.exit(0));
});
