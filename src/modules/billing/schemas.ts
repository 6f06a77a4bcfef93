/** Request and response shapes of the account billing operations (spec 2 and 4.8). Money: integer cents as the spec names them, USD numbers elsewhere. */
import { Type } from 'typebox';
import { DateTime, Literals, Nullable } from '../../core/schema.ts';

const RequestId = Type.String({
  minLength: 8,
  maxLength: 160,
  description: 'Idempotency of the change: the same request_id and body answers the first result',
});
const Cents = (description?: string) => Type.Integer(description ? { description } : {});
const CentsMap = Type.Record(Type.String(), Type.Integer({ minimum: 0 }));

export const ContractTermsSchema = Type.Object(
  {
    tier: Literals('paygo', 'pilot', 'growth', 'scale', 'enterprise'),
    cadence: Literals('monthly', 'annual'),
    commitment_term_months: Type.Union([Type.Literal(0), Type.Literal(12), Type.Literal(24), Type.Literal(36)]),
    commitment_amount_cents: Cents(),
    usage_discount_bps: Type.Integer({ minimum: 0, maximum: 10000 }),
    usage_rates: Type.Object({
      match: Type.Object({ microbatch: Type.Integer(), file: Type.Integer() }),
      audience_delivery: Type.Object({
        filter: Type.Integer(),
        matched: Type.Integer(),
        similarity: Type.Integer(),
        propensity: Type.Integer(),
      }),
      destination: CentsMap,
      enrichment_field: CentsMap,
    }),
  },
  { description: 'Contract terms: usage rates in integer cents per record' },
);

export const ScheduledChangeSchema = Type.Object({
  kind: Literals('replacement', 'renewal', 'cancellation'),
  request_id: Type.String(),
  status: Literals('provisioning', 'scheduled', 'failed', 'applied'),
  effective_at: DateTime(),
  previous_contract_end_at: Nullable(DateTime()),
  successor_contract_id: Nullable(Type.String()),
  terms: ContractTermsSchema,
  error_code: Nullable(Type.String()),
  created_at: DateTime(),
  updated_at: DateTime(),
});

export const ContractChangeBody = Type.Object(
  {
    request_id: RequestId,
    tier: Literals('pilot', 'growth', 'scale'),
    cadence: Type.Optional(Literals('monthly', 'annual')),
  },
  { additionalProperties: false },
);

export const ContractChangeResponse = Type.Object({
  status: Type.Literal('scheduled'),
  effective_at: DateTime(),
  scheduled_change: ScheduledChangeSchema,
});

export const ContractResponse = Type.Object({
  billing_account_id: Type.String(),
  billing_mode: Literals('prepaid', 'invoiced'),
  parent_billed: Type.Boolean({ description: 'Billed through a parent (agency) organization' }),
  terms: ContractTermsSchema,
  current_period_start: DateTime(),
  next_billing_boundary_at: DateTime(),
  scheduled_change: Nullable(ScheduledChangeSchema),
});

export const CreditBalanceItemSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  product_id: Type.String(),
  product_name: Type.String(),
  kind: Literals('paid_commit', 'promotional_credit'),
  remaining_cents: Cents(),
  applicable_product_ids: Type.Array(Type.String()),
  applicable_product_tags: Type.Array(Type.String()),
  source: Nullable(Type.String()),
  access_schedule: Type.Array(Type.Object({ amount_cents: Cents(), starting_at: DateTime(), ending_before: DateTime() })),
  active: Type.Boolean(),
  priority: Type.Integer({ description: 'Lower burns first' }),
});

export const CreditsResponse = Type.Object({
  billing_account_id: Type.String(),
  balances: Type.Array(CreditBalanceItemSchema),
  next_expiry_at: Nullable(DateTime()),
});

export const UsageQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Start (inclusive); default: the current billing period start' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'End (exclusive); default: the next billing boundary' })),
  },
  { additionalProperties: false },
);

export const UsageResponse = Type.Object({
  billing_account_id: Type.String(),
  period_start: DateTime(),
  period_end: DateTime(),
  usage: Type.Array(
    Type.Object({
      kind: Type.String(),
      events: Type.Integer(),
      quantity: Type.Integer(),
      amount_cents: Cents(),
      amount: Type.Number({ description: 'USD' }),
      covered_cents: Cents('Drawn from credits and commits'),
      invoiced_cents: Cents('Not covered by credits'),
    }),
  ),
  total_cents: Cents(),
  total_amount: Type.Number({ description: 'USD' }),
  covered_cents: Cents(),
  invoiced_cents: Cents(),
});

export const AutoRechargeBody = Type.Object(
  {
    request_id: RequestId,
    enabled: Type.Boolean(),
    threshold_cents: Type.Integer({ minimum: 500, maximum: 4_999_000 }),
    recharge_to_cents: Type.Integer({ minimum: 1_500, maximum: 5_000_000 }),
  },
  { additionalProperties: false },
);

export const AutoRechargeResponse = Type.Object({
  billing_account_id: Type.String(),
  auto_recharge: Type.Object({
    configured: Type.Boolean(),
    enabled: Type.Boolean(),
    threshold_cents: Nullable(Type.Integer({ minimum: 500 })),
    recharge_to_cents: Nullable(Type.Integer()),
    configuration_request_id: Nullable(Type.String()),
    payment_status: Literals('none', 'pending', 'action_required', 'paid', 'failed'),
    last_payment_attempt_id: Nullable(Type.String()),
    payment_provider_invoice_id: Nullable(Type.String()),
    payment_provider_payment_intent_id: Nullable(Type.String()),
    last_error_code: Nullable(Type.String()),
    updated_at: Nullable(DateTime()),
    pending_change: Nullable(
      Type.Object({
        request_id: Type.String(),
        enabled: Type.Boolean(),
        threshold_cents: Type.Integer(),
        recharge_to_cents: Type.Integer(),
        status: Literals('provisioning', 'failed'),
        last_error_code: Nullable(Type.String()),
        created_at: DateTime(),
        updated_at: DateTime(),
      }),
    ),
  }),
  action_url: Nullable(Type.String({ format: 'uri' })),
});

export const PortalBody = Type.Object({ return_url: Type.String({ minLength: 1, maxLength: 2048 }) }, { additionalProperties: false });
export const PortalResponse = Type.Object({ portal_url: Type.String({ format: 'uri' }) });
