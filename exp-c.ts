import { createStore } from './src/store/createStore.ts';
import { loadSeed } from './src/reference/importReference.ts';
import { generateDemo } from './src/demo/generate.ts';
const store = await createStore({ dataDir: null });
await loadSeed(store);
let t = Date.now(); await generateDemo(store, {}); console.log('demo ms', Date.now() - t);
for (const tb of ['evm_native_transfer','evm_lending_v3_deposit','evm_lending_v3_liquidation','evm_dex_v3_swap','evm_dex_v3_collect','evm_staking_deposit','evm_staking_l2_deposit'])
  console.log(tb, await store.all(`select network, count(*)::INT n from ${tb} group by all order by all`));
console.log(await store.all(`select * from evm_dex_v3_swap limit 2`));
console.log(await store.all(`select * from evm_lending_v3_liquidation limit 1`));
