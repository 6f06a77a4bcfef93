/**
 * The one outbound-target policy: every connection the service opens to a customer-supplied host
 * (webhooks, delivery destinations, later client metadata documents and integration providers) resolves
 * through `policyLookup` and connects to exactly the address it approved. IP literals go through it
 * too (Node would otherwise connect to a literal without asking any lookup), so the address checked is
 * the address dialled, at connect time, in every mode.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { isLocalName, judgeAddress, type Verdict } from './address.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (dns.lookup with all: true by default). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundPolicy {
  /** Loopback and private targets are dialled only when true (OUTBOUND_ALLOW_PRIVATE_TARGETS). */
  allowPrivate: boolean;
  /** Injectable for tests; defaults to the system resolver. */
  resolve?: Resolver;
}

/** A refusal by the policy; `code` lets transports tell it from a network failure. */
export class OutboundRefusedError extends Error {
  readonly code = 'TARGET_NOT_ALLOWED';
  constructor(
    readonly host: string,
    readonly verdict: Verdict,
    detail?: string,
  ) {
    super(
      `connections to ${host} are not allowed (${detail ?? (verdict === 'forbidden' ? 'link-local, metadata or reserved address' : 'private or loopback address')})`,
    );
    this.name = 'OutboundRefusedError';
  }
}

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (err, addresses: LookupAddress[]) => (err ? reject(err) : resolve(addresses))),
  );

const permits = (policy: OutboundPolicy, verdict: Verdict) => verdict === 'public' || (verdict === 'private' && policy.allowPrivate);

/** Whether the policy lets an address (a literal) be dialled. */
export function permitsAddress(policy: OutboundPolicy, address: string): boolean {
  return permits(policy, judgeAddress(address));
}

/**
 * A host as the URL parser reads it: lower case, IPv6 brackets removed, IPv4 spellings such as
 * `0x7f.1` or `2130706433` normalized to dotted quads (so a literal is judged as one); null when the
 * text is not a host.
 */
export function canonicalHost(host: string): string | null {
  const bare = host.trim().replace(/^\[|\]$/g, '');
  try {
    return new URL(`http://${net.isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Whether a host is refused when it is configured as a target (a webhook URL's, a delivery
 * destination's), before any connection: IP literals in any spelling are judged as they are and
 * `localhost` names as private. Other names are not resolved here: a name can point anywhere later,
 * so the connect-time lookup (`resolveTarget`) judges every address it resolves to.
 */
export function refusesConfiguredHost(policy: OutboundPolicy, host: string): boolean {
  const h = canonicalHost(host);
  if (h === null) return true;
  if (net.isIP(h)) return !permits(policy, judgeAddress(h));
  return isLocalName(h) && !policy.allowPrivate;
}

/**
 * The address to dial for host: an IP literal is judged as it is; a name is resolved and every answer
 * judged (one refused answer refuses the name, so a DNS answer cannot smuggle an address in).
 */
export async function resolveTarget(policy: OutboundPolicy, host: string): Promise<ResolvedAddress> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (net.isIP(bare.replace(/%.*$/, ''))) {
    const verdict = judgeAddress(bare);
    if (!permits(policy, verdict)) throw new OutboundRefusedError(bare, verdict);
    return { address: bare, family: net.isIP(bare) || 6 };
  }
  if (isLocalName(bare) && !policy.allowPrivate) throw new OutboundRefusedError(bare, 'private');
  const answers = await (policy.resolve ?? systemResolver)(bare);
  if (answers.length === 0) throw Object.assign(new Error(`${bare} did not resolve`), { code: 'ENOTFOUND' });
  for (const a of answers) {
    const verdict = judgeAddress(a.address);
    if (!permits(policy, verdict)) throw new OutboundRefusedError(bare, verdict, `resolves to ${a.address}`);
  }
  return { address: answers[0]!.address, family: answers[0]!.family || net.isIP(answers[0]!.address) };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup-compatible function that applies the policy (for net.connect, SSH clients, agents). */
export function policyLookup(policy: OutboundPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number } | LookupCallback, cb?: LookupCallback) => {
    const callback = (typeof options === 'function' ? options : cb)!;
    const all = typeof options === 'object' && options.all === true;
    resolveTarget(policy, hostname).then(
      ({ address, family }) => (all ? callback(null, [{ address, family }]) : callback(null, address, family)),
      (error: NodeJS.ErrnoException) => callback(error, all ? [] : ''),
    );
  };
}

type CreateCallback = (err: Error | null, socket?: net.Socket) => void;

/**
 * An http(s) Agent whose sockets connect only to addresses the lookup approved. TLS keeps the original
 * host name for SNI and certificate checks. `keepAlive: false` gives a fresh, freshly checked
 * connection per request.
 */
export function lookupAgent(
  lookup: (host: string, callback: (err: Error | null, address?: string) => void) => void,
  protocol: 'http:' | 'https:',
  options: { keepAlive?: boolean; maxSockets?: number } = {},
): http.Agent {
  const create = (opts: net.NetConnectOpts & tls.ConnectionOptions & { host?: string; port?: number }, callback: CreateCallback) => {
    const host = (opts.host ?? 'localhost').replace(/^\[|\]$/g, '');
    lookup(host, (error, address) => {
      if (error || !address) return callback(error ?? new Error(`no address for ${host}`));
      const socket =
        protocol === 'https:'
          ? tls.connect({ ...opts, host: address, servername: opts.servername ?? (net.isIP(host) ? undefined : host) })
          : net.connect({ ...(opts as net.TcpNetConnectOpts), host: address });
      callback(null, socket);
    });
    return undefined;
  };
  const AgentClass = protocol === 'https:' ? https.Agent : http.Agent;
  const agent = new AgentClass({ keepAlive: options.keepAlive ?? true, maxSockets: options.maxSockets ?? 8 });
  (agent as unknown as { createConnection: typeof create }).createConnection = create;
  return agent;
}

/** An agent that dials only what the policy permits. */
export function outboundAgent(
  policy: OutboundPolicy,
  protocol: 'http:' | 'https:',
  options?: { keepAlive?: boolean; maxSockets?: number },
) {
  return lookupAgent(
    (host, callback) =>
      resolveTarget(policy, host).then(
        ({ address }) => callback(null, address),
        (e: Error) => callback(e),
      ),
    protocol,
    options,
  );
}
