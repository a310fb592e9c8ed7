/** The operator's protocols file laid over the shipped contract addresses. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dexV3 } from '../protocols/dex_v3/index.ts';
import { lendingV3 } from '../protocols/lending_v3/index.ts';
import { staking } from '../protocols/staking/index.ts';
import { loadProtocols, ProtocolConfigError, type Protocols } from './protocols.ts';

/** Each protocol's section, typed by the protocol that reads it. */
const sections = (p: Protocols) => ({
  lending_v3: { ETH: lendingV3.configOf(p, 'ETH'), ARB: lendingV3.configOf(p, 'ARB') },
  dex_v3: { ETH: dexV3.configOf(p, 'ETH'), ARB: dexV3.configOf(p, 'ARB') },
  staking: { ETH: staking.configOf(p, 'ETH'), ARB: staking.configOf(p, 'ARB'), OP: staking.configOf(p, 'OP') },
});

function file(content: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-protocols-'));
  const f = path.join(dir, 'protocols.json');
  fs.writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
  return f;
}

describe('loadProtocols', () => {
  it('ships the real addresses: three lending markets on ETH, a factory per dex network, Lido on ETH and the L2 bridges', () => {
    const p = sections(loadProtocols());
    expect(p.lending_v3.ETH!.map((m) => m.market)).toEqual(['Core', 'Prime', 'EtherFi']);
    expect(p.lending_v3.ETH![0]!.pool).toBe('0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2');
    expect(p.dex_v3.ETH!.factory).toBe('0x1f98431c8ad98523631ae4a59f267346ea31f984');
    expect(p.staking.ETH!.steth).toBe('0xae7ab96520de3a18e5e111b5eaab095312d7fe84');
    expect(p.staking.ARB!.l2_token_bridge).toMatch(/^0x[0-9a-f]{40}$/);
  });

  it('an entry of the operator file replaces the shipped one for that protocol and network only; null removes it', () => {
    const p = sections(
      loadProtocols(
        file({
          lending_v3: { eth: [{ market: 'Core', pool: '0xAAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }] },
          dex_v3: { ETH: null },
          staking: { OP: { l2_token_bridge: '0x00000000000000000000000000000000000000bb', wsteth: '0x00000000000000000000000000000000000000cc', bridge_kind: 'optimism' } },
        }),
      ),
    );
    expect(p.lending_v3.ETH).toEqual([{ market: 'Core', pool: '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', deployed_block: null }]);
    expect(p.lending_v3.ARB).toEqual(sections(loadProtocols()).lending_v3.ARB);
    expect(p.dex_v3.ETH).toBeUndefined();
    expect(p.dex_v3.ARB).toBeDefined();
    expect(p.staking.OP).toEqual({ l2_token_bridge: '0x00000000000000000000000000000000000000bb', wsteth: '0x00000000000000000000000000000000000000cc', bridge_kind: 'optimism' });
  });

  it('refuses a malformed file with a message naming the place', () => {
    expect(() => loadProtocols(file({ dex_v3: { ETH: { factory: '0x123' } } }))).toThrow(/dex_v3\.ETH\.factory must be a 0x-prefixed 20-byte hex address/);
    expect(() => loadProtocols(file({ lending: {} }))).toThrow(ProtocolConfigError);
    expect(() => loadProtocols(file({ staking: { ARB: { bridge_kind: 'cosmos' } } }))).toThrow(/bridge_kind/);
    expect(() => loadProtocols(file('{ not json'))).toThrow(/cannot read/);
  });
});
