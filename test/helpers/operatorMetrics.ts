/**
 * A running server's /metrics, read over its operator channel (the Unix
 * socket its data directory's operator file names).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { OPERATOR_FILE } from '../../src/operator/channel.ts';

export function operatorMetrics(dataDir: string): Promise<string> {
  const info = JSON.parse(fs.readFileSync(path.join(dataDir, OPERATOR_FILE), 'utf8')) as { socket: string };
  return new Promise<string>((resolve, reject) => {
    http
      .get({ socketPath: info.socket, path: '/metrics' }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
}

/** The value of the sample of metric `name` with exactly these labels in `text` (Prometheus text format), or undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.keys(got).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}
