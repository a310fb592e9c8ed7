/**
 * TEST INFRASTRUCTURE: runs the ClickHouse HTTP front over chDB
 * (clickhouseHttpFront.ts) as a process of its own, standing in for a
 * ClickHouse server in tests with several chainq processes. Prints
 * `listening on http://127.0.0.1:PORT` when ready; SIGTERM or SIGINT stops it.
 *
 *   node --import tsx test/helpers/clickhouseHttpFront.main.ts --dir DIR [--user U] [--password P] [--port N] [--log]
 *
 * `--log` prints one line per statement on stderr (time taken, the statement's start).
 */
import { parseArgs } from 'node:util';
import { startClickHouseHttpFront } from './clickhouseHttpFront.ts';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    user: { type: 'string', default: 'default' },
    password: { type: 'string', default: '' },
    port: { type: 'string', default: '0' },
    log: { type: 'boolean', default: false },
  },
});
if (!values.dir) throw new Error('--dir is required');

const front = await startClickHouseHttpFront({
  dir: values.dir,
  username: values.user,
  password: values.password,
  port: Number(values.port),
  ...(values.log ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
});
const stop = () => {
  front.close().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`${String(e)}\n`);
      process.exit(1);
    },
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.stdout.write(`listening on ${front.url}\n`);
