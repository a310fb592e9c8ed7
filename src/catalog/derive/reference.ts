/** Catalog → the generated endpoint tables of docs/endpoints.md. */
import { accountEndpoints, type ResponseField } from '../account.ts';
import { catalog } from '../index.ts';
import type { Endpoint, Params } from '../types.ts';
import { walletNamespaceParams } from '../labelNamespace.ts';
import { aggregateParams, familyParams } from './routes.ts';

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

function paramTable(params: Params): string[] {
  const lines = ['| Parameter | Type | Required | Default | Rule |', '|---|---|---|---|---|'];
  for (const [name, p] of Object.entries(params)) {
    const rule = [
      p.description,
      p.enum ? `One of: ${p.enum.join(', ')}.` : '',
      p.exclusiveWith?.length ? `Not with: ${p.exclusiveWith.join(', ')}.` : '',
      p.list ? 'Comma-separated list accepted.' : '',
      p.networks ? `Only on ${p.networks.join(', ')}.` : '',
    ]
      .filter(Boolean)
      .join(' ');
    lines.push(`| \`${name}\` | ${p.type} | ${p.required ? 'yes' : 'no'} | ${p.default === undefined ? '' : `\`${String(p.default)}\``} | ${cell(rule)} |`);
  }
  return lines;
}

function section(e: Endpoint): string[] {
  const out = [`### \`GET ${e.path}\``, '', e.summary, ''];
  if (!e.served) out.push('_Described in the catalog; not served yet._', '');
  if (e.family !== 'exchange') out.push(`Networks: ${e.networks.join(', ')}.`, '');
  else out.push(`Maximum range: ${e.maxDays} days.`, '');
  const cost = e.cost.kind === 'blocks' ? 'block-based' : `${e.cost.perDay} per day queried${e.cost.minimum ? `, minimum ${e.cost.minimum}` : ''}`;
  out.push(`Formats: ${e.formats.join(', ')} (default ${e.defaultFormat}). Cost: ${cost}.`, '');
  out.push(...paramTable({ ...familyParams(e), ...e.params, ...walletNamespaceParams(e) }), '');
  out.push('| Column | Type | Meaning |', '|---|---|---|');
  for (const c of e.columns) out.push(`| \`${c.name}\` | ${c.type} | ${cell(c.description)} |`);
  if (e.family !== 'exchange' && e.verboseColumns.length) {
    for (const c of e.verboseColumns) out.push(`| \`${c.name}\` (verbose) | ${c.type} | ${cell(c.description)} |`);
  }
  out.push('');
  if (e.family !== 'exchange' && e.aggregate) {
    const agg = e.aggregate;
    out.push(
      `Aggregate: \`GET ${e.path}/aggregate\` adds ${Object.keys(aggregateParams(e))
        .map((n) => `\`${n}\``)
        .join(', ')}. Columns: ` +
        [
          ...agg.columns.map((c) => `\`${c.output_column}\` (${c.aggregation} of ${c.source_column})`),
          ...(agg.pivot_columns ?? []).map((p) => `\`${p.output_pattern}\` (${p.aggregation} of ${p.value_column} per ${p.key_column})`),
          '`count`',
          ...(agg.valued ? ['`agg_value_usd` with with_value=true'] : []),
        ].join(', ') +
        '.',
      '',
    );
  }
  return out;
}

function fieldRows(fields: readonly ResponseField[], prefix = ''): string[] {
  return fields.flatMap((f) => [`| \`${prefix}${f.name}\` | ${f.type}${f.nullable ? ' or null' : ''} | ${cell(f.description)} |`, ...fieldRows(f.items ?? [], `${prefix}${f.name}[].`)]);
}

function accountSection(): string[] {
  const out = ['## account', ''];
  for (const a of accountEndpoints) {
    out.push(`### \`GET ${a.path}\``, '', a.summary, '', ...paramTable(a.params), '', '| Field | Type | Meaning |', '|---|---|---|', ...fieldRows(a.fields), '');
  }
  return out;
}

export function endpointReference(entries: readonly Endpoint[] = catalog): string {
  const out = [
    '# Endpoint reference',
    '',
    '<!-- Generated from the catalog by `npm run docs`; a test fails when it is stale. Do not edit by hand. -->',
    '',
    'Conventions, errors, formats and metering: see [api.md](api.md).',
    '',
  ];
  const families = [...new Set(entries.map((e) => `${e.family}/${e.protocol}`))];
  for (const f of families) {
    out.push(`## ${f}`, '');
    for (const e of entries.filter((x) => `${x.family}/${x.protocol}` === f)) out.push(...section(e));
  }
  out.push(...accountSection());
  return `${out.join('\n').trimEnd()}\n`;
}
