/**
 * The operator channel, client side. A running `chainq serve` listens on a
 * Unix socket beside its store (file permissions are the access rule, as with
 * PostgreSQL, Redis or Docker: only the owner can connect, and there is no
 * secret to leak). The CLI looks for it before opening the store: when a
 * server holds the store, the command goes to the server.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { OperatorError, type ActionInput, type ActionName, type ActionOutput } from './actions.ts';
import type { JobStatus } from './jobManager.ts';
import type { JobSpec } from './jobSpec.ts';
import type { JobMessage } from './runJob.ts';
import { errnoCode } from '../utils/errorText.ts';
import { describeSchemaError, parseWith, type Validator } from '../utils/jsonSchema.ts';
import { actionOutput, validateErrorBody, validateJobMessage, validateJobStatus, validateJobStatuses, validateOperatorInfo, type OperatorInfo } from './channelMessages.ts';

/** Written by the server beside the store: who holds it, and where its socket is. */
export const OPERATOR_FILE = 'chainq.operator.json';

export type { OperatorInfo } from './channelMessages.ts';

/**
 * The socket's path: `<data>/chainq.sock`, unless that is longer than a Unix
 * socket path may be (108 bytes), then a name in the temporary folder derived
 * from the data directory.
 */
export function socketPathFor(dataDir: string): string {
  const beside = path.join(dataDir, 'chainq.sock');
  if (Buffer.byteLength(beside) < 100) return beside;
  return path.join(os.tmpdir(), `chainq-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`);
}

/** The server's file in `dataDir`; null when there is none, or none this version can read. */
export function readOperatorInfo(file: string): OperatorInfo | null {
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  return validateOperatorInfo(doc) ? doc : null;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errnoCode(e) === 'EPERM';
  }
};

export interface JobRun {
  /** The job's id on the server. */
  readonly id: string;
  /** Asks the server to stop the job at its next batch boundary. */
  stop(): Promise<void>;
  /** The job's last message: done or failed (a lost connection is a failure). */
  readonly ended: Promise<Extract<JobMessage, { type: 'done' | 'failed' }>>;
}

export interface OperatorClient {
  readonly info: OperatorInfo;
  action<N extends ActionName>(name: N, input: ActionInput<N>): Promise<ActionOutput<N>>;
  /** Runs a job in the server; messages arrive as they happen. With `detach`, returns once the server accepted it. */
  startJob(spec: JobSpec, opts: { detach?: boolean; onMessage?: (m: JobMessage) => void }): Promise<JobRun>;
  jobs(): Promise<JobStatus[]>;
  stopJob(id: string): Promise<JobStatus>;
}

interface Answer {
  status: number;
  body: string;
}

function request(socket: string, method: string, urlPath: string, body?: unknown, timeoutMs = 0): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // A connection of its own (no keep-alive pool): a pooled connection to a server that has since stopped would fail a later command.
    const req = http.request({ socketPath: socket, agent: false, method, path: urlPath, headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error('the server did not answer')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The answer's JSON when it is a success the schema accepts; an error answer throws its message. */
function parse<T>(a: Answer, validate: Validator<T>): T {
  let doc: unknown;
  try {
    doc = JSON.parse(a.body);
  } catch {
    throw new Error(`the server answered ${a.status} with no JSON`);
  }
  if (a.status >= 400) {
    const message = validateErrorBody(doc) ? doc.error : `error ${a.status}`;
    throw a.status < 500 ? new OperatorError(message) : new Error(message);
  }
  return parseWith(validate, doc, (e) => new Error(`the server's answer is not understood: ${e ? describeSchemaError('answer', e) : 'invalid'}`));
}

/** Whether a chainq server answers on the operator socket `socket`. */
export async function answersAt(socket: string): Promise<boolean> {
  try {
    return (await request(socket, 'GET', '/', undefined, 5_000)).status === 200;
  } catch {
    return false;
  }
}

/** The running server that holds this data directory's store, or null when none does. */
export async function findServer(dataDir: string): Promise<OperatorClient | null> {
  const info = readOperatorInfo(path.join(dataDir, OPERATOR_FILE));
  if (!info || !alive(info.pid)) return null;
  return (await answersAt(info.socket)) ? connectServer(info) : null;
}

export function connectServer(info: OperatorInfo): OperatorClient {
  const { socket } = info;
  return {
    info,
    async action<N extends ActionName>(name: N, input: ActionInput<N>): Promise<ActionOutput<N>> {
      return parse(await request(socket, 'POST', `/actions/${name}`, input ?? {}), actionOutput(name));
    },
    async jobs() {
      return parse(await request(socket, 'GET', '/jobs'), validateJobStatuses);
    },
    async stopJob(id) {
      return parse(await request(socket, 'POST', `/jobs/${encodeURIComponent(id)}/stop`, {}), validateJobStatus);
    },
    startJob(spec, opts) {
      return new Promise<JobRun>((resolve, reject) => {
        // Replaced by the promise's resolver at once: a Promise runs its executor before returning.
        let settle: (m: Extract<JobMessage, { type: 'done' | 'failed' }>) => void = () => undefined;
        const ended = new Promise<Extract<JobMessage, { type: 'done' | 'failed' }>>((r) => {
          settle = r;
        });
        let accepted = false;
        let last: Extract<JobMessage, { type: 'done' | 'failed' }> | null = null;
        const req = http.request({ socketPath: socket, agent: false, method: 'POST', path: `/jobs${opts.detach ? '?detach=true' : ''}`, headers: { 'content-type': 'application/json' } }, (res) => {
          if ((res.statusCode ?? 500) >= 400) {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              try {
                parse({ status: res.statusCode ?? 500, body: Buffer.concat(chunks).toString('utf8') }, validateJobStatus);
              } catch (e) {
                reject(e);
              }
            });
            return;
          }
          let buffered = '';
          res.setEncoding('utf8');
          res.on('data', (text: string) => {
            buffered += text;
            for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
              const line = buffered.slice(0, nl);
              buffered = buffered.slice(nl + 1);
              if (!line) continue;
              const m = parseWith(validateJobMessage, JSON.parse(line), (e) => new Error(`the server sent a message not understood: ${e ? describeSchemaError('message', e) : 'invalid'}`));
              if (m.type === 'accepted' && !accepted) {
                accepted = true;
                const id = m.id;
                resolve({
                  id,
                  ended,
                  stop: async () => {
                    await request(socket, 'POST', `/jobs/${encodeURIComponent(id)}/stop?wait=false`, {});
                  },
                });
              }
              if (m.type === 'done' || m.type === 'failed') last = m;
              opts.onMessage?.(m);
            }
          });
          res.on('end', () => settle(last ?? { type: 'failed', message: 'the server closed the connection before the job ended' }));
          res.on('error', () => settle(last ?? { type: 'failed', message: 'lost the connection to the server' }));
        });
        req.on('error', (e) => {
          if (!accepted) reject(e);
          else settle(last ?? { type: 'failed', message: `lost the connection to the server: ${e.message}` });
        });
        req.end(JSON.stringify(spec));
      });
    },
  };
}
