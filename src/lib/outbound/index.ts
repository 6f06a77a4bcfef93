/** The outbound-target policy (one module for every outbound connection). */
export { embeddedIPv4, ipv6Groups, isLocalName, judgeAddress, type Verdict } from './address.ts';
export {
  canonicalHost,
  lookupAgent,
  outboundAgent,
  OutboundRefusedError,
  permitsAddress,
  policyLookup,
  refusesConfiguredHost,
  resolveTarget,
  type OutboundPolicy,
  type ResolvedAddress,
  type Resolver,
} from './policy.ts';
export { policyFetch } from './fetch.ts';
