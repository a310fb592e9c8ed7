/**
 * What a venue token is, for the API and for ingestion alike: a perpetual's
 * coin, letters and digits (BTC, kPEPE; stored and matched in upper case).
 * venue_b spot pairs (`@107`, `PURR/USDC`) are not supported, end to end, and
 * are refused as such rather than as a malformed symbol.
 */
import { ApiError } from '../errors/apiError.ts';

export const VENUE_TOKEN = /^[A-Za-z0-9]{1,20}$/;

/** Why `token` is not a venue token, naming a spot pair as one. */
export function venueTokenRefusal(token: string): string {
  if (token.startsWith('@') || token.includes('/')) return `'${token}' is a spot pair; spot markets are not supported, only perpetual coins such as BTC or kPEPE`;
  return `'${token}' is not a token symbol: letters and digits, such as BTC`;
}

/** The `token` parameter of a venue request, in upper case, or invalid_parameter. */
export function venueToken(value: unknown): string {
  const token = String(value ?? '').trim();
  if (!VENUE_TOKEN.test(token)) throw new ApiError('invalid_parameter', `token=${venueTokenRefusal(String(value))}`, { parameter: 'token' });
  return token.toUpperCase();
}
