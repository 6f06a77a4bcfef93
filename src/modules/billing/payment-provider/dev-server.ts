/**
 * The built-in payment provider for development and tests: a loopback HTTP server speaking the subset
 * of a card processor's REST API this service uses (Stripe's shapes: form-encoded requests, a secret
 * key as bearer, `Idempotency-Key` on creates, `card_error` 402 answers). Test card numbers decide the
 * outcome, as with Stripe's test cards:
 *   4242424242424242  succeeds
 *   4000002760003184  requires authentication (3-D Secure) on every charge: `requires_action`, completed at /authenticate/{id}
 *   4000000000000002  is declined (`card_declined`)
 * Run it with `ads billing provider [--port N]`; point PAYMENT_PROVIDER_URL at it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

export const TEST_CARDS = { success: '4242424242424242', requiresAction: '4000002760003184', declined: '4000000000000002' } as const;

interface PaymentMethod {
  id: string;
  number: string;
  brand: string;
  last4: string;
  name: string | null;
}
interface Intent {
  id: string;
  amount: number;
  currency: string;
  status: string;
  payment_method: string;
  invoice: string;
  description: string | null;
}

const rid = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export interface DevPaymentProvider {
  url: string;
  secretKey: string;
  server: Server;
  /** Completes a pending 3-D Secure challenge as the cardholder would (also POST /authenticate/{id}). */
  authenticate(intentId: string, approve: boolean): boolean;
  /** Makes the next `n` API calls answer 500 (provider outage). */
  failNext(n: number): void;
  intents: Map<string, Intent>;
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startDevPaymentProvider(options: { port?: number; secretKey?: string } = {}): Promise<DevPaymentProvider> {
  const secretKey = options.secretKey ?? `sk_test_${randomBytes(12).toString('hex')}`;
  const methods = new Map<string, PaymentMethod>();
  const intents = new Map<string, Intent>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let failures = 0;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const cardError = (code: string, message: string, extra: object = {}) => ({ error: { type: 'card_error', code, message, ...extra } });
  const intentBody = (i: Intent, base: string) => ({
    id: i.id,
    object: 'payment_intent',
    amount: i.amount,
    currency: i.currency,
    status: i.status,
    payment_method: i.payment_method,
    invoice: i.invoice,
    description: i.description,
    next_action:
      i.status === 'requires_action' ? { type: 'redirect_to_url', redirect_to_url: { url: `${base}/authenticate/${i.id}` } } : null,
  });

  const server = createServer(async (req, res) => {
    const base = `http://${req.headers.host}`;
    const url = new URL(req.url ?? '/', base);
    const auth = /^\/authenticate\//.test(url.pathname);
    if (!auth && req.headers.authorization !== `Bearer ${secretKey}`)
      return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
    if (!auth && failures > 0) {
      failures -= 1;
      return send(res, 500, { error: { type: 'api_error', message: 'An unexpected error occurred.' } });
    }
    const key = req.headers['idempotency-key'];
    const cacheKey = typeof key === 'string' ? `${req.method} ${url.pathname} ${key}` : null;
    if (req.method === 'POST' && cacheKey && idempotent.has(cacheKey)) {
      const hit = idempotent.get(cacheKey)!;
      return send(res, hit.status, hit.body);
    }
    const remember = (status: number, body: unknown) => {
      if (cacheKey) idempotent.set(cacheKey, { status, body });
      send(res, status, body);
    };

    if (req.method === 'POST' && url.pathname === '/v1/payment_methods') {
      const form = await readForm(req);
      const number = (form.get('card[number]') ?? '').replace(/\s+/g, '');
      if (!/^\d{12,19}$/.test(number))
        return remember(402, cardError('invalid_number', 'The card number is not a valid credit card number.'));
      const pm: PaymentMethod = {
        id: rid('pm'),
        number,
        brand: number.startsWith('4') ? 'visa' : 'card',
        last4: number.slice(-4),
        name: form.get('billing_details[name]'),
      };
      methods.set(pm.id, pm);
      return remember(200, {
        id: pm.id,
        object: 'payment_method',
        type: 'card',
        card: { brand: pm.brand, last4: pm.last4 },
        billing_details: { name: pm.name },
      });
    }
    if (req.method === 'POST' && url.pathname === '/v1/payment_intents') {
      const form = await readForm(req);
      const amount = Number(form.get('amount'));
      const pm = methods.get(form.get('payment_method') ?? '');
      if (!Number.isSafeInteger(amount) || amount < 50)
        return remember(400, {
          error: { type: 'invalid_request_error', code: 'amount_too_small', message: 'Amount must be at least 50 cents.' },
        });
      if (!pm)
        return remember(400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such PaymentMethod.' } });
      const intent: Intent = {
        id: rid('pi'),
        amount,
        currency: form.get('currency') ?? 'usd',
        status: 'succeeded',
        payment_method: pm.id,
        invoice: rid('in'),
        description: form.get('description'),
      };
      if (pm.number === TEST_CARDS.declined) {
        intent.status = 'requires_payment_method';
        intents.set(intent.id, intent);
        return remember(
          402,
          cardError('card_declined', 'Your card was declined.', {
            decline_code: 'generic_decline',
            payment_intent: intentBody(intent, base),
          }),
        );
      }
      if (pm.number === TEST_CARDS.requiresAction) intent.status = 'requires_action';
      intents.set(intent.id, intent);
      return remember(200, intentBody(intent, base));
    }
    const intentMatch = /^\/v1\/payment_intents\/([\w]+)$/.exec(url.pathname);
    if (req.method === 'GET' && intentMatch) {
      const i = intents.get(intentMatch[1]!);
      return i
        ? send(res, 200, intentBody(i, base))
        : send(res, 404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_intent.' } });
    }
    const authMatch = /^\/authenticate\/([\w]+)$/.exec(url.pathname);
    if (authMatch) {
      const i = intents.get(authMatch[1]!);
      if (!i) return send(res, 404, { error: { message: 'No such payment_intent.' } });
      if (req.method === 'POST') {
        const form = await readForm(req);
        complete(i.id, form.get('result') !== 'fail');
        return send(res, 200, intentBody(i, base));
      }
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><title>Authenticate</title><form method="post"><p>Authenticate a payment of $${(i.amount / 100).toFixed(2)}</p><button name="result" value="complete">Complete</button><button name="result" value="fail">Fail</button></form>`,
        );
      return;
    }
    send(res, 404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL.' } });
  });

  function complete(id: string, approve: boolean): boolean {
    const i = intents.get(id);
    if (!i || i.status !== 'requires_action') return false;
    i.status = approve ? 'succeeded' : 'requires_payment_method';
    return true;
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    server,
    intents,
    authenticate: complete,
    failNext: (n) => {
      failures = n;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
