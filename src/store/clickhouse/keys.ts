/** API keys on ClickHouse, through the key functions of ./metering.ts. */
import type { KeyOperations } from '../types.ts';
import { activeKeyByHash, allKeys, countKeys, insertKey, updateKey } from './metering.ts';
import type { ClickHouseStore } from './types.ts';

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseKeys(store: () => ClickHouseStore): KeyOperations {
  return {
    insert: (k) => insertKey(store(), k),
    activeByHash: (hash) => activeKeyByHash(store(), hash),
    all: () => allKeys(store()),
    count: (idOrPrefix, active) => countKeys(store(), idOrPrefix, active),
    update: (idOrPrefix, change) => updateKey(store(), idOrPrefix, change),
  };
}
