/**
 * Closing the app does not wait on a connection that never sent a request
 * (an HTTP client's spare connection): Node counts it busy until its header
 * timeout, a minute or more, and an app close used to wait that long.
 */
import net, { type AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(null);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
}, 120_000);

it('an app close ends at once with a connection open that has sent no request, and closes that connection', { timeout: 20_000 }, async () => {
  const socket = net.connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const closedByServer = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  const t0 = Date.now();
  await t.close();
  await closedByServer;
  expect(Date.now() - t0).toBeLessThan(5_000);
});
