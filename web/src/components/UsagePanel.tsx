/** The key's month so far, from GET /v1/usage. */
import type { Usage } from '../api.ts';

const n = (x: number) => x.toLocaleString('en-US');

export function UsagePanel({ usage }: { readonly usage: Usage }) {
  return (
    <section class="usage" aria-labelledby="usage-h">
      <h2 id="usage-h">Your usage</h2>
      <dl>
        <dt>Plan</dt>
        <dd data-usage="plan">{usage.plan}</dd>
        <dt>Per minute</dt>
        <dd>{usage.requests_per_minute === null ? 'no limit' : `${n(usage.requests_per_minute)} requests`}</dd>
        <dt>Used in {usage.month}</dt>
        <dd data-usage="used">
          {n(usage.blocks_used)} blocks{usage.monthly_blocks !== null ? ` of ${n(usage.monthly_blocks)}` : ''}
        </dd>
        <dt>Left</dt>
        <dd data-usage="left">{usage.blocks_left === null ? 'no monthly budget' : `${n(usage.blocks_left)} blocks`}</dd>
        <dt>Resets</dt>
        <dd>{usage.resets_at}</dd>
      </dl>
      {usage.last_charges.length ? (
        <table class="charges">
          <caption>Latest charges</caption>
          <thead>
            <tr>
              <th scope="col">when</th>
              <th scope="col">endpoint</th>
              <th scope="col">blocks</th>
            </tr>
          </thead>
          <tbody>
            {usage.last_charges.slice(0, 5).map((c) => (
              <tr key={c.request_id}>
                <td>{c.charged_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</td>
                <td>
                  <code>{c.endpoint ?? ''}</code>
                </td>
                <td class="num">{n(c.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">No charges this month.</p>
      )}
    </section>
  );
}
