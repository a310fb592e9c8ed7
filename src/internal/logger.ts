/** Structured logs go to stderr, so that stdout stays for what commands print for people and scripts. */
import { pino, type Logger } from 'pino';

export function createLogger(level = process.env.CHAINQ_LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'chainq' } }, pino.destination(2));
}
