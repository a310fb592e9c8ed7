/**
 * The operator channel, server side: a small HTTP API on a Unix socket beside
 * the store (owner-only permissions), never on the public listener, and
 * never opened by an API key. The CLI sends its commands here when a server
 * holds the store (src/operator/channel.ts); see the README's "Operating a
 * live server".
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { isActionName, OperatorError, runAction, type OperatorContext } from '../operator/actions.ts';
import { actionInput } from '../operator/channelMessages.ts';
import { answersAt, findServer, OPERATOR_FILE, readOperatorInfo, socketPathFor, type OperatorInfo } from '../operator/channel.ts';
import type { JobManager } from '../operator/jobManager.ts';
import { parseJobSpec, withoutName } from '../operator/jobSpec.ts';
import type { JobMessage } from '../operator/runJob.ts';
import { errnoCode, statusCodeOf } from '../utils/errorText.ts';
import { describeSchemaError, parseWith } from '../utils/jsonSchema.ts';
import { sleep } from '../utils/sleep.ts';
import { ConflictError, InvalidInputError } from '../errors/chainqError.ts';

export interface OperatorChannelOptions {
  readonly dataDir: string;
  readonly actions: OperatorContext;
  readonly jobs: JobManager;
  readonly logger?: Logger;
  /** More routes for operators only (e.g. GET /metrics). */
  readonly extend?: (app: FastifyInstance) => void;
}

export interface OperatorChannel {
  readonly socket: string;
  close(): Promise<void>;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Null when another live server already answers on this data directory's
 * channel: it keeps it. Several servers can share a data directory (DuckDB
 * opened read-only with --redis, or servers of one ClickHouse on one
 * machine); only a socket whose server died is replaced.
 */
export async function startOperatorChannel(opts: OperatorChannelOptions): Promise<OperatorChannel | null> {
  const socket = socketPathFor(opts.dataDir);
  const infoFile = path.join(opts.dataDir, OPERATOR_FILE);
  if (await findServer(opts.dataDir)) return null;
  // Two servers may start on one directory at once (read-only, with Redis): the
  // socket goes to the first, and a socket is removed only when nothing answers
  // on it twice, a while apart (a crashed server's).
  if (fs.existsSync(socket)) {
    if ((await answersAt(socket)) || (await settleThenAnswers(socket))) return null;
    fs.rmSync(socket, { force: true });
  }
  // Typed as Fastify's own logger, so that the instance is a plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = opts.logger?.child({ channel: 'operator' }) ?? pino({ enabled: false });
  const app = Fastify({
    loggerInstance,
    logController: new LogController({ disableRequestLogging: true }),
  });
  const startedAt = new Date().toISOString();

  app.setErrorHandler((err, request, reply) => {
    const status = err instanceof InvalidInputError ? 400 : err instanceof ConflictError ? 409 : (statusCodeOf(err) ?? 500);
    if (status >= 500) request.log.error({ err }, 'operator command failed');
    return reply.code(status).send({ status: 'error', error: messageOf(err) });
  });

  app.get('/', async () => ({ pid: process.pid, startedAt, jobs: opts.jobs.list().filter((j) => j.state === 'running' || j.state === 'retrying').length }));

  app.post<{ Params: { name: string } }>('/actions/:name', async (request, reply) => {
    const { name } = request.params;
    if (!isActionName(name)) return reply.code(404).send({ status: 'error', error: `no operator action ${name}` });
    const input = parseWith(actionInput(name), request.body ?? {}, (e) => new OperatorError(e ? describeSchemaError(name, e) : `${name}: invalid input`));
    const result = await runAction(opts.actions, name, input);
    request.log.info({ action: name }, 'operator action');
    return result;
  });

  app.get('/jobs', async () => opts.jobs.list());

  app.post<{ Params: { id: string }; Querystring: { wait?: string } }>('/jobs/:id/stop', async (request, reply) => {
    const job = opts.jobs.get(request.params.id);
    if (!job) return reply.code(404).send({ status: 'error', error: `no job ${request.params.id}` });
    const stopping = job.stop();
    if (request.query.wait !== 'false') await stopping;
    return job.status();
  });

  app.post<{ Querystring: { detach?: string } }>('/jobs', async (request, reply) => {
    const spec = parseJobSpec(request.body);
    const job = opts.jobs.start(withoutName(spec), { ...(spec.name ? { name: spec.name } : {}) });
    const accepted: JobMessage = { type: 'accepted', id: job.id, label: job.status().label };
    if (request.query.detach === 'true') return reply.type('application/x-ndjson').send(`${JSON.stringify(accepted)}\n`);
    // Attached: the job's messages stream to the CLI as JSON lines until it ends.
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const write = (m: JobMessage) => {
      res.write(`${JSON.stringify(m)}\n`);
    };
    write(accepted);
    const unsubscribe = job.subscribe(write);
    // A CLI that goes away (killed, terminal closed) takes its attached job with it, at a batch boundary.
    res.on('close', () => {
      unsubscribe();
      if (!res.writableFinished) void job.stop();
    });
    void job.ended.then(() => res.end());
  });

  opts.extend?.(app);
  try {
    await app.listen({ path: socket });
  } catch (e) {
    await app.close();
    // Taken meanwhile by a server starting beside this one.
    if (errnoCode(e) === 'EADDRINUSE') return null;
    throw e;
  }
  fs.chmodSync(socket, 0o600);
  const info: OperatorInfo = { pid: process.pid, socket, startedAt };
  fs.writeFileSync(infoFile, `${JSON.stringify(info)}\n`, { mode: 0o600 });

  return {
    socket,
    async close() {
      await app.close();
      // Only our own socket and file: a newer server may have replaced them after this one was taken for dead.
      const current = readOperatorInfo(infoFile);
      if (current === null || current.pid === process.pid) fs.rmSync(socket, { force: true });
      if (current?.pid === process.pid) fs.rmSync(infoFile, { force: true });
    },
  };
}

/** A server that has just bound its socket may not accept yet: ask again after a moment. */
async function settleThenAnswers(socket: string): Promise<boolean> {
  await sleep(200);
  return answersAt(socket);
}
