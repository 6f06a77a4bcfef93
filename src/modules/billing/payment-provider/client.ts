/**
 * The payment provider behind an interface: card payment methods and off-session charges, over the
 * provider's REST API (Stripe's shapes). Network errors, 5xx and unexpected answers are
 * PAYMENT_PROVIDER_FAILED (502 on account endpoints); a declined card is an outcome, not an error.
 */
import { DomainError } from '../../../core/errors.ts';

export interface PaymentMethodResult {
  id: string;
  label: string;
}
export type ChargeOutcome =
  | { status: 'succeeded'; intentId: string; invoiceId: string | null }
  | { status: 'requires_action'; intentId: string; invoiceId: string | null; actionUrl: string }
  | { status: 'failed'; intentId: string | null; errorCode: string };

export interface PaymentProvider {
  createPaymentMethod(input: { cardNumber: string; name: string }): Promise<PaymentMethodResult | { error: string }>;
  charge(input: { amountCents: number; paymentMethodId: string; idempotencyKey: string; description: string }): Promise<ChargeOutcome>;
  retrieve(intentId: string): Promise<ChargeOutcome>;
}

export interface ProviderSettings {
  url: string | null;
  secretKey: string | null;
}

const failed = (message: string, cause?: unknown) =>
  new DomainError('PAYMENT_PROVIDER_FAILED', message, {
    nextStep: 'Retry in a few minutes; nothing was charged by this request.',
    cause,
  });

interface IntentBody {
  id: string;
  status: string;
  invoice?: string | null;
  next_action?: { redirect_to_url?: { url: string } } | null;
}

function outcomeOf(i: IntentBody): ChargeOutcome {
  if (i.status === 'succeeded') return { status: 'succeeded', intentId: i.id, invoiceId: i.invoice ?? null };
  if (i.status === 'requires_action')
    return {
      status: 'requires_action',
      intentId: i.id,
      invoiceId: i.invoice ?? null,
      actionUrl: i.next_action?.redirect_to_url?.url ?? '',
    };
  if (i.status === 'processing' || i.status === 'requires_confirmation')
    return { status: 'requires_action', intentId: i.id, invoiceId: i.invoice ?? null, actionUrl: '' };
  return { status: 'failed', intentId: i.id, errorCode: 'payment_failed' };
}

export function httpPaymentProvider(settings: ProviderSettings, fetchImpl: typeof fetch = fetch): PaymentProvider {
  async function call(
    method: 'GET' | 'POST',
    path: string,
    form?: Record<string, string>,
    idempotencyKey?: string,
  ): Promise<{ status: number; body: any }> {
    if (!settings.url || !settings.secretKey)
      throw failed('No payment provider is configured (PAYMENT_PROVIDER_URL, PAYMENT_PROVIDER_KEY).');
    let res: Response;
    try {
      res = await fetchImpl(`${settings.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${settings.secretKey}`,
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw failed('The payment provider could not be reached.', error);
    }
    const body = await res.json().catch(() => null);
    if (res.status >= 500 || res.status === 401 || body === null) throw failed(`The payment provider answered ${res.status}.`);
    return { status: res.status, body };
  }

  return {
    async createPaymentMethod(input) {
      const r = await call('POST', '/v1/payment_methods', {
        type: 'card',
        'card[number]': input.cardNumber,
        'billing_details[name]': input.name,
      });
      if (r.status === 402) return { error: String(r.body.error?.code ?? 'card_error') };
      if (r.status !== 200) throw failed(`The payment provider refused the payment method (${r.status}).`);
      return { id: String(r.body.id), label: `${r.body.card?.brand ?? 'card'} ending ${r.body.card?.last4 ?? '????'}` };
    },
    async charge(input) {
      const r = await call(
        'POST',
        '/v1/payment_intents',
        {
          amount: String(input.amountCents),
          currency: 'usd',
          payment_method: input.paymentMethodId,
          confirm: 'true',
          off_session: 'true',
          description: input.description,
        },
        input.idempotencyKey,
      );
      if (r.status === 402)
        return {
          status: 'failed',
          intentId: r.body.error?.payment_intent?.id ?? null,
          errorCode: String(r.body.error?.code ?? 'card_declined'),
        };
      if (r.status !== 200) throw failed(`The payment provider refused the charge (${r.status}).`);
      return outcomeOf(r.body as IntentBody);
    },
    async retrieve(intentId) {
      const r = await call('GET', `/v1/payment_intents/${encodeURIComponent(intentId)}`);
      if (r.status !== 200) throw failed(`The payment provider answered ${r.status} for a payment.`);
      return outcomeOf(r.body as IntentBody);
    },
  };
}
