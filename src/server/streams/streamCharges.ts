/**
 * What a stream pays (docs/metering.md, "Stream charges"): like a raw JSON
 * query over the blocks it delivered, the network's discount included and
 * the 100-block minimum counted once per connection. Each step (at most
 * STEP_BLOCKS blocks of a batch, streamSession.ts) is charged through the
 * same durable meter as every request before it is sent, under its own
 * request id in the ledger, so a stream that stops at any moment has paid for
 * what it was sent and at most the one step it was being sent.
 */
import type { FastifyRequest } from 'fastify';
import type { CostClass } from '../../catalog/types.ts';
import type { MeterState } from '../../metering/meter.ts';
import { monthPeriod } from '../../metering/period.ts';
import { computeCost } from '../../query/cost.ts';

export type StepResult = { readonly ok: true } | { readonly ok: false; readonly code: 'quota_exceeded' | 'cost_over_limit'; readonly error: string };

export interface StreamCharges {
  /** Charges the delivery of `blocks` more blocks, durably, before they are sent. */
  pay(blocks: number): Promise<StepResult>;
  /** The cost charged so far. */
  readonly charged: number;
}

export function streamCharges(request: FastifyRequest, endpoint: string, costClass: CostClass, network: string, maxCost: number | null): StreamCharges {
  const state = request.meter;
  const meter = request.server.meter;
  let delivered = 0;
  let charged = 0;
  let step = 0;
  const costOf = (blocks: number) => computeCost({ costClass, network, range: { kind: 'blocks', start: 0, end: blocks }, aggregate: false }).cost;
  return {
    get charged() {
      return charged;
    },
    async pay(blocks) {
      const total = costOf(delivered + blocks);
      if (maxCost !== null && total > maxCost) {
        return { ok: false, code: 'cost_over_limit', error: `the next batch would bring this stream's cost to ${total}, over max_cost=${maxCost}; ${charged} charged so far` };
      }
      const due = total - charged;
      if (due > 0 && state) {
        const now = meter.clock();
        step++;
        const s: MeterState = { ...state, requestId: `${state.requestId}.${step}`, now, period: monthPeriod(now), charge: null };
        if (!(await meter.reserve(s, due, endpoint))) {
          return { ok: false, code: 'quota_exceeded', error: `the next batch costs ${due} blocks but ${s.remaining} are left this month on plan ${state.plan.name}; ${charged} charged so far` };
        }
        await meter.commit(s);
        state.remaining = s.remaining;
      }
      delivered += blocks;
      charged = total;
      return { ok: true };
    },
  };
}
