/** What `chainq ingest venue_b` can load, by the names its --datasets option takes. */
export type VenueBDataset = 'fills' | 'candles' | 'funding';
export const VENUE_B_DATASETS: readonly VenueBDataset[] = ['fills', 'candles', 'funding'];
