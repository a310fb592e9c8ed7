/** Quoting of names and catalog constants in ClickHouse SQL (never of request values, which are bound). */

/** Quotes an identifier that comes from the catalog (never from a request). */
export const ident = (name: string): string => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;

/** A string literal of a catalog constant. */
export const quote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
