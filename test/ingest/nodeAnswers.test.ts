/**
 * A node that answers with JSON of another shape than its API's is refused,
 * with the field named, instead of having its answer read as if it were right.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceError } from '../../src/errors/chainqError.ts';
import { createBtcRpcClient } from '../../src/ingest/btc/rpcClient.ts';
import { createTronNodeClient } from '../../src/ingest/tron/nodeClient.ts';
import { startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';

const http = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } };
let server: SourceServer;

beforeAll(async () => {
  server = await startSourceServer();
});

afterAll(async () => {
  await server?.close();
});

describe('node answers of another shape', () => {
  it('refuses a Tron block without its parent hash, naming the field', async () => {
    server.handlers.set('/wallet/getblockbylimitnext', () => ({ block: [{ blockID: 'aa', block_header: { raw_data: { number: 1, timestamp: 1 } } }] }));
    const tron = createTronNodeClient(server.url, http);
    const refused = tron.getBlocks(1, 1);
    await expect(refused).rejects.toThrow('Tron node getblockbylimitnext: an answer of another shape (answer.block[0].block_header.raw_data.parentHash: required)');
    await expect(refused).rejects.toBeInstanceOf(SourceError);
  });

  it("refuses a bitcoind result that is not the method's, naming it", async () => {
    server.handlers.set('/', (body) => ({ id: typeof body === 'object' && body !== null && 'id' in body ? body.id : null, error: null, result: 'tall' }));
    const btc = createBtcRpcClient(server.url, http);
    await expect(btc.getBlockCount()).rejects.toThrow('bitcoind getblockcount: a result of another shape (result: must be integer)');
  });
});
