/**
 * The ingest commands' progress display: a cli-progress bar on stderr (one
 * per phase), notes printed above it, and plain periodic lines instead when
 * stderr is not a terminal (logs, CI).
 */
import cliProgress from 'cli-progress';
import type { IngestProgress } from '../ingest/progress.ts';

export function createProgressBar(opts: { quiet?: boolean } = {}): IngestProgress {
  if (opts.quiet) {
    return { start() {}, advance() {}, note: (m) => process.stderr.write(`${m}\n`), stop() {} };
  }
  let multi: cliProgress.MultiBar | null = null;
  let bar: cliProgress.SingleBar | null = null;
  let done = 0;
  const stop = () => {
    multi?.stop();
    multi = null;
    bar = null;
  };
  return {
    start(label, total) {
      stop();
      done = 0;
      multi = new cliProgress.MultiBar(
        {
          stream: process.stderr,
          format: `${label} [{bar}] {value}/{total} {percentage}% | ETA {eta_formatted} | {unit}`,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 20,
          noTTYOutput: true,
          notTTYSchedule: 10_000,
        },
        cliProgress.Presets.shades_classic,
      );
      bar = multi.create(total, 0, { unit: '' });
    },
    advance(n, unit) {
      done += n;
      bar?.update(done, { unit });
    },
    note(message) {
      if (multi) multi.log(`${message}\n`);
      else process.stderr.write(`${message}\n`);
    },
    stop,
  };
}
