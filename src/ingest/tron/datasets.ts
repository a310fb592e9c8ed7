/** The Tron datasets `chainq ingest tron` fills, by the names its --datasets option takes. */
import { tronNativeTransfer, tronTrc20Transfer } from '../../catalog/tron/transfers.ts';
import type { ChainDataset } from '../chain/ingestBlocks.ts';

export const TRON_DATASETS = {
  native: { id: tronNativeTransfer.id, table: tronNativeTransfer.table.name },
  trc20: { id: tronTrc20Transfer.id, table: tronTrc20Transfer.table.name },
} as const satisfies Record<string, ChainDataset>;

export type TronDatasetName = keyof typeof TRON_DATASETS;
