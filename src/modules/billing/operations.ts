/** Operations of the billing area (spec 4.8 account endpoints, and our reads of contract, usage and auto-recharge). */
import { callerOf, defineOperation, type Operation } from '../../core/operation.ts';
import { DomainError } from '../../core/errors.ts';
import type { AccountService } from './account.ts';
import type { PortalService } from './portal.ts';
import type { RechargeService } from './recharge.ts';
import {
  AutoRechargeBody,
  AutoRechargeResponse,
  ContractChangeBody,
  ContractChangeResponse,
  ContractResponse,
  CreditsResponse,
  PortalBody,
  PortalResponse,
  UsageQuery,
  UsageResponse,
} from './schemas.ts';

const tags = ['Account'];

export function billingOperations(deps: { accounts: AccountService; recharge: RechargeService; portal: PortalService }): Operation[] {
  const { accounts, recharge, portal } = deps;
  return [
    defineOperation({
      id: 'getCredits',
      method: 'GET',
      path: '/v1/account/credits',
      tags,
      access: 'account-read',
      effect: 'read',
      agent: { tool: 'get_credits' },
      summary: 'Credit and commit balances',
      description:
        'Prepaid commits and promotional credits with their remaining cents, access schedule and applicability. Usage burns down the applicable ' +
        'balances by priority, then promotional before paid, then narrowest scope, then earliest expiry. Free. Parent-billed organizations cannot inspect pooled balances.',
      input: {},
      status: 200,
      responses: { 200: CreditsResponse },
      errors: ['PARENT_BILLED_ORGANIZATION'],
      examples: [{ name: 'credits', summary: 'Balances of the organization', request: {}, response: { status: 200 } }],
      handler: async (ctx) => accounts.credits(callerOf(ctx).orgId),
    }),

    defineOperation({
      id: 'getUsage',
      method: 'GET',
      path: '/v1/account/usage',
      tags,
      access: 'account-read',
      effect: 'read',
      agent: { tool: 'get_account_usage' },
      summary: 'Usage summary by kind',
      description:
        'Settled usage of the ledger by kind (matches, deliveries per subtype) in a period, default the current billing period: events, quantity, ' +
        'cents charged, cents covered by credits and cents invoiced. Free.',
      input: { query: UsageQuery },
      status: 200,
      responses: { 200: UsageResponse },
      errors: ['INVALID_REQUEST'],
      examples: [{ name: 'period', summary: 'Usage of the current billing period', request: {}, response: { status: 200 } }],
      handler: async (ctx, { query }) => {
        const from = query.from ? new Date(query.from) : undefined;
        const to = query.to ? new Date(query.to) : undefined;
        if (from && to && from.getTime() >= to.getTime()) throw new DomainError('INVALID_REQUEST', '`from` must be before `to`.');
        return accounts.usage(callerOf(ctx).orgId, { from, to });
      },
    }),

    defineOperation({
      id: 'getContract',
      method: 'GET',
      path: '/v1/account/contract',
      tags,
      access: 'account-read',
      effect: 'read',
      agent: { tool: 'get_contract' },
      summary: 'The current contract terms and a scheduled change',
      description:
        'Tier, cadence, commitment, discount and usage rates (integer cents per record), the billing period, and the change scheduled at the next boundary, if any. Free.',
      input: {},
      status: 200,
      responses: { 200: ContractResponse },
      errors: [],
      examples: [{ name: 'contract', summary: "The organization's contract", request: {}, response: { status: 200 } }],
      handler: async (ctx) => accounts.contract(callerOf(ctx).orgId),
    }),

    defineOperation({
      id: 'changeContract',
      method: 'POST',
      path: '/v1/account/contract/change',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Schedule a contract change at the next billing boundary',
      description:
        'Moves to tier pilot, growth or scale (optionally another cadence) at the next verified billing boundary; the rate limit and compute budget ' +
        'follow the new tier from then. Idempotent on request_id; a newer request replaces a scheduled one. Enterprise terms are managed by platform admins; ' +
        'parent-billed organizations cannot change the agency contract. Charges nothing by itself.',
      input: { body: ContractChangeBody },
      status: 200,
      responses: { 200: ContractChangeResponse },
      errors: ['INVALID_REQUEST', 'ENTERPRISE_CONTRACT_MANAGED', 'PARENT_BILLED_ORGANIZATION', 'REQUEST_ID_CONFLICT'],
      examples: [
        {
          name: 'growth',
          summary: 'Move to growth, billed annually',
          request: { body: { request_id: 'chg-2026-11-growth', tier: 'growth', cadence: 'annual' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { body }) => accounts.changeContract(callerOf(ctx).orgId, body),
    }),

    defineOperation({
      id: 'getAutoRecharge',
      method: 'GET',
      path: '/v1/account/auto-recharge',
      tags,
      access: 'account-read',
      effect: 'read',
      agent: { tool: 'get_auto_recharge' },
      summary: 'Auto-recharge settings and payment status',
      description:
        'The same body as PUT /v1/account/auto-recharge answers: settings, payment_status, the last payment attempt and a pending change. Free.',
      input: {},
      status: 200,
      responses: { 200: AutoRechargeResponse },
      errors: [],
      examples: [{ name: 'settings', summary: 'Current settings', request: {}, response: { status: 200 } }],
      handler: async (ctx) => recharge.get(callerOf(ctx).orgId),
    }),

    defineOperation({
      id: 'putAutoRecharge',
      method: 'PUT',
      path: '/v1/account/auto-recharge',
      tags,
      access: 'account',
      effect: 'spend',
      summary: 'Set auto-recharge (owners of self-billed prepaid organizations)',
      description:
        'When the balance falls below threshold_cents, the payment method is charged up to recharge_to_cents (once per crossing) and a paid commit is ' +
        'granted after the payment succeeds. Enabling while the balance is already below the threshold charges at once; the settings then wait in ' +
        '`pending_change` until that payment succeeds (action_url when the bank asks for authentication). Needs a ready payment method and billing address. ' +
        'Idempotent on request_id.',
      input: { body: AutoRechargeBody },
      status: 200,
      responses: { 200: AutoRechargeResponse },
      errors: [
        'INVALID_REQUEST',
        'PARENT_BILLED_ORGANIZATION',
        'PREPAID_BILLING_REQUIRED',
        'BILLING_OWNER_REQUIRED',
        'PAYMENT_METHOD_REQUIRED',
        'BILLING_ADDRESS_REQUIRED',
        'REQUEST_ID_CONFLICT',
        'PAYMENT_PROVIDER_FAILED',
      ],
      agent: false,
      examples: [
        {
          name: 'enable',
          summary: 'Recharge to $200 when the balance falls under $50',
          request: { body: { request_id: 'recharge-2026-11-23', enabled: true, threshold_cents: 5000, recharge_to_cents: 20000 } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { body }) => {
        const c = callerOf(ctx);
        return recharge.put({ orgId: c.orgId, userId: c.userId }, body);
      },
    }),

    defineOperation({
      id: 'createPaymentMethodPortal',
      method: 'POST',
      path: '/v1/account/payment-method/portal',
      tags,
      access: 'account',
      effect: 'write',
      summary: 'A link to the payment-method portal',
      description:
        'A single-use link, valid for 15 minutes and needing no sign-in, to a page of this service that adds or replaces the card, collects the billing ' +
        'address and shows the collection history; it can do nothing else. Free.',
      input: { body: PortalBody },
      status: 200,
      responses: { 200: PortalResponse },
      errors: ['INVALID_REQUEST', 'PARENT_BILLED_ORGANIZATION'],
      agent: false,
      examples: [
        {
          name: 'portal',
          summary: 'Open the portal, then come back to the dashboard',
          request: { body: { return_url: 'https://app.example.com/billing' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { body }) => portal.createLink(callerOf(ctx).orgId, body.return_url),
    }),
  ];
}
