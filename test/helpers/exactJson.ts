/**
 * JSON.parse that keeps every integer exact: integer literals become bigints
 * (JSON.parse would round a number past 2^53), so a test can check that a
 * 64-bit integer is served with all its digits.
 */
export function parseExactJson(text: string): unknown {
  const marker = '\u0000int:';
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      // Copy the string literal as is, escapes included.
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (number && (c === '-' || (c >= '0' && c <= '9'))) {
      out += number[1] || number[2] ? number[0] : JSON.stringify(marker + number[0]);
      i += number[0].length;
      continue;
    }
    out += c;
    i++;
  }
  return JSON.parse(out, (_k, v: unknown) => (typeof v === 'string' && v.startsWith(marker) ? BigInt(v.slice(marker.length)) : v));
}
