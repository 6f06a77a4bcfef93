/** Tables of the billing area (migration 040-billing-accounts), apart so schema.ts stays readable. */
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface BillingAccountsTable {
  org_id: string;
  billing_account_id: string;
  /** prepaid | invoiced */
  mode: string;
  parent_org_id: string | null;
  /** monthly | annual */
  cadence: string;
  period_start_at: Timestamp;
  boundary_at: Timestamp;
  billing_address: string | null;
  payment_method_id: string | null;
  payment_method_label: string | null;
  /** JSON text: the auto-recharge configuration and its payment state. */
  auto_recharge: string | null;
  recharge_epoch: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CreditGrantsTable {
  id: string;
  org_id: string;
  /** paid_commit | promotional_credit */
  kind: string;
  name: string;
  product_id: string;
  product_name: string;
  priority: number;
  applicable_product_ids: string;
  applicable_product_tags: string;
  source: string | null;
  amount_cents: number;
  remaining_cents: number;
  starting_at: Timestamp;
  ending_before: Timestamp;
  created_at: Timestamp;
}

export interface CreditDrawsTable {
  id: string;
  org_id: string;
  ledger_id: string;
  grant_id: string;
  amount_cents: number;
  created_at: Timestamp;
}

export interface IdentityLicensesTable {
  org_id: string;
  person_key: string | number;
  licensed_at: Timestamp;
  expires_at: Timestamp;
  ledger_id: string;
}

export interface ContractChangesTable {
  id: string;
  org_id: string;
  request_id: string;
  request_fingerprint: string;
  kind: string;
  status: string;
  tier: string;
  cadence: string;
  effective_at: Timestamp;
  previous_contract_end_at: Timestamp | null;
  terms: string;
  error_code: string | null;
  applied_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PaymentAttemptsTable {
  id: string;
  org_id: string;
  crossing_key: string;
  amount_cents: number;
  /** pending | action_required | paid | failed */
  status: string;
  provider_intent_id: string | null;
  provider_invoice_id: string | null;
  action_url: string | null;
  error_code: string | null;
  grant_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PortalLinksTable {
  token_hash: string;
  org_id: string;
  return_url: string;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: Timestamp;
}
