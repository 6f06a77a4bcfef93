/**
 * Connections through the caller's lookup. Node skips `lookup` for IP literals (net.connect to
 * '169.254.169.254' asks nobody), so every host - name or literal - is resolved here first and the
 * socket connects to the returned address: the policy sees every target and nothing else is dialled.
 */
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import { lookupAgent as policyAgent, policyLookup, type OutboundPolicy } from '../lib/outbound/index.ts';
import { DestinationBlockedError, DestinationUnreachableError } from './errors.ts';
import type { LookupFunction, NetOptions } from './types.ts';

const DNS_FAILURES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'ESERVFAIL', 'ETIMEOUT', 'ENODATA']);
export const DEFAULT_TIMEOUT_MS = 15_000;

/** The address `net.lookup` gives for host; DestinationBlockedError when the lookup refuses it. */
export function resolveHost(o: NetOptions, host: string): Promise<{ address: string; family: number }> {
  // Bracketed IPv6 literals (from URLs) are looked up bare.
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return new Promise((resolve, reject) => {
    try {
      o.lookup(bare, { all: false }, (err, address, family) => {
        if (err) {
          reject(
            DNS_FAILURES.has(err.code ?? '')
              ? new DestinationUnreachableError(`cannot resolve ${bare}: ${err.code}`, { cause: err })
              : new DestinationBlockedError(bare, { cause: err }),
          );
        } else if (!net.isIP(address)) {
          reject(new DestinationBlockedError(bare, { cause: new Error(`lookup returned "${address}", not an IP address`) }));
        } else {
          resolve({ address, family: family || net.isIP(address) });
        }
      });
    } catch (cause) {
      reject(new DestinationBlockedError(bare, { cause }));
    }
  });
}

/** A connected TCP socket to host:port through the lookup. */
export async function connectSocket(o: NetOptions, host: string, port: number): Promise<net.Socket> {
  const { address } = await resolveHost(o, host);
  const timeout = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    const fail = (cause: Error) => {
      socket.destroy();
      reject(new DestinationUnreachableError(`cannot connect to ${host}:${port}: ${cause.message}`, { cause }));
    };
    socket.setTimeout(timeout, () => fail(new Error('connect timed out')));
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.removeListener('error', fail);
      resolve(socket);
    });
  });
}

/**
 * An http(s) Agent whose sockets are made through the lookup (for the AWS SDK's NodeHttpHandler);
 * the agent itself is the outbound policy's (src/lib/outbound).
 */
export function lookupAgent(o: NetOptions, protocol: 'http:' | 'https:'): http.Agent {
  return policyAgent(
    (host, callback) =>
      resolveHost(o, host).then(
        ({ address }) => callback(null, address),
        (error: Error) => callback(error),
      ),
    protocol,
  );
}

/**
 * The outbound-target policy (src/lib/outbound) as this folder's lookup: names and IP literals are judged
 * at connect time; a refusal is not a DNS failure, so resolveHost reports DestinationBlockedError.
 */
export function outboundLookup(policy: OutboundPolicy): LookupFunction {
  const lookup = policyLookup(policy);
  return (hostname, options, callback) =>
    lookup(hostname, { family: options.family, all: false }, (err, address, family) => callback(err, address as string, family ?? 0));
}
