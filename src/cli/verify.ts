/**
 * `chainq verify`: compares what the store holds of a network with what a
 * node gives, per dataset and block (src/ingest/evm/verifyEvm.ts for EVM
 * networks, src/ingest/chain/verifyChain.ts for Tron and Bitcoin). Runs in
 * the server that holds the store when one is running, else in this process;
 * exits 1 when any block differs.
 */
import type { Command } from 'commander';
import type { VerifyReport } from '../ingest/evm/verifyEvm.ts';
import { createLogger } from '../internal/logger.ts';
import type { VerifyJobSpec } from '../operator/jobSpec.ts';
import type { JobMessage } from '../operator/runJob.ts';
import { runIngestJob } from './ingestJob.ts';
import { DATA_HELP, DEFAULT_DATA_DIR, STORE_HELP, blockNumber, defined, positiveInteger, protocolsFile, timeOption } from './options.ts';

interface VerifyCliOptions {
  data: string;
  store?: string;
  network: string;
  rpc?: string;
  api?: string;
  allContracts?: boolean;
  blockStart?: number;
  blockEnd?: number;
  since?: number;
  until?: number;
  sample?: number;
  protocols?: string;
  batchBlocks?: number;
  concurrency?: number;
  skipChainCheck?: boolean;
  json?: boolean;
  log?: boolean;
  detach?: boolean;
}

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description("compare the stored rows of a network (EVM, TRON or BTC) with a node's, per dataset and block (row count and content hash); exits 1 on a difference")
    .requiredOption('--network <code>', 'network code, e.g. ETH, ARB, BASE, TRON, BTC')
    .option('--rpc <url>', 'JSON-RPC endpoint to compare with (EVM networks and BTC; best another node than ingestion read)')
    .option('--api <url>', 'TRON: the full node HTTP API to compare with, as for chainq ingest tron')
    .option('--all-contracts', 'TRON: TRC-20 transfers were ingested for every contract (chainq ingest tron --all-contracts)')
    .option('--block-start <n>', 'first block to compare, inclusive (with --block-end)', blockNumber)
    .option('--block-end <n>', 'last block to compare, inclusive', blockNumber)
    .option('--since <time>', 'compare the blocks from this time (with --until; YYYY-MM-DD, ISO 8601 or Unix seconds)', timeOption)
    .option('--until <time>', 'up to this time, exclusive', timeOption)
    .option('--sample <n>', 'compare this many blocks drawn at random from the covered blocks of the range (default: every block)', positiveInteger)
    .option('--protocols <file>', 'the contract addresses ingestion used (default: <data>/protocols.json when present)')
    .option('--batch-blocks <n>', 'blocks fetched per batch (default: 200 to start, then sized from the events per block as ingestion does)', positiveInteger)
    .option('--concurrency <n>', 'batches fetched at once (default 4)', positiveInteger)
    .option('--skip-chain-check', "do not check that the node's chain id is the network's")
    .option('--json', 'print the report as JSON')
    .option('--log', 'JSON log lines of the progress on stderr')
    .option('--detach', 'with a server running: leave the verification running in it and return')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .action(async (opts: VerifyCliOptions) => runVerify(opts));
}

async function runVerify(opts: VerifyCliOptions): Promise<void> {
  if ((opts.blockStart === undefined) !== (opts.blockEnd === undefined)) throw new Error('--block-start and --block-end go together');
  if ((opts.since === undefined) !== (opts.until === undefined)) throw new Error('--since and --until go together');
  if (opts.blockStart !== undefined && opts.since !== undefined) throw new Error('give a block range or a time range, not both');
  const tron = opts.network.toUpperCase() === 'TRON';
  if (tron && opts.rpc !== undefined) throw new Error('--network TRON takes its node with --api (the full node HTTP API), not --rpc');
  if (!tron && opts.api !== undefined) throw new Error('--api is for --network TRON; give this network its node with --rpc');
  if (!tron && opts.allContracts) throw new Error('--all-contracts is for --network TRON');
  const node = tron ? { api: opts.api } : { rpc: opts.rpc };
  if (!node.api && !node.rpc) throw new Error(tron ? '--network TRON needs --api <url>' : `--network ${opts.network} needs --rpc <url>`);
  const logger = createLogger();
  const spec: VerifyJobSpec = {
    source: 'verify',
    network: opts.network,
    ...defined({
      ...node,
      allContracts: opts.allContracts,
      blockStart: opts.blockStart,
      blockEnd: opts.blockEnd,
      since: opts.since,
      until: opts.until,
      sample: opts.sample,
      protocols: protocolsFile(opts),
      batchBlocks: opts.batchBlocks,
      concurrency: opts.concurrency,
      skipChainCheck: opts.skipChainCheck,
    }),
  };
  const show = (m: JobMessage) => {
    if (m.type !== 'verify' || !opts.log) return;
    const { type, ...fields } = m.event;
    logger.info({ event: type, ...fields }, type);
  };
  const note = (text: string) => {
    if (opts.log) logger.info({ event: 'notice' }, text);
    else process.stderr.write(`${text}\n`);
  };
  const end = await runIngestJob({ data: opts.data, store: opts.store, detach: opts.detach ?? false }, spec, show, note);
  if (end.type === 'detached') return;
  if (end.type === 'failed') {
    if (end.interrupted) {
      process.exitCode = 130;
      return;
    }
    throw new Error(end.message);
  }
  if (end.result.source !== 'verify') return;
  const report = end.result.report;
  process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : describeReport(report));
  if (report.stopped) process.exitCode = 130;
  else if (report.result !== 'ok') process.exitCode = 1;
}

const n = (x: number) => x.toLocaleString('en-US');
const rangesText = (r: VerifyReport['ranges']) =>
  r.length === 0
    ? 'no covered block'
    : r
        .slice(0, 5)
        .map((i) => (i.lo === i.hi ? `${i.lo}` : `${i.lo}–${i.hi}`))
        .join(', ') + (r.length > 5 ? `, … (${r.length} ranges)` : '');

/** The human report: one line per dataset, then every block that differs. */
export function describeReport(r: VerifyReport): string {
  const lines = [
    `${r.stopped ? 'stopped' : r.result === 'ok' ? 'ok' : 'MISMATCH'}: ${r.network} against ${r.node}, ${n(r.blocks)} ${r.sampled ? 'sampled ' : ''}block(s) (${rangesText(r.ranges)}), ${r.datasets.length} dataset(s), ${r.mismatches.length} difference(s) in ${r.seconds.toFixed(1)} s`,
  ];
  const width = Math.max(7, ...r.datasets.map((d) => d.dataset.length));
  for (const d of r.datasets)
    lines.push(
      `  ${d.dataset.padEnd(width)}  ${n(d.blocks).padStart(8)} blocks  ${n(d.storedRows).padStart(10)} rows stored  ${n(d.nodeRows).padStart(10)} on the node  ${d.mismatches ? `${d.mismatches} block(s) differ` : 'ok'}`,
    );
  for (const s of r.skipped) lines.push(`  ${s.dataset.padEnd(width)}  not compared: ${s.reason}`);
  if (r.mismatches.length) {
    lines.push('differences:');
    for (const m of r.mismatches) {
      const what = m.stored.rows !== m.node.rows ? `${m.stored.rows} row(s) stored, ${m.node.rows} on the node` : `${m.stored.rows} row(s) on both sides, contents differ`;
      lines.push(`  block ${m.block}  ${m.dataset}  ${what}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
