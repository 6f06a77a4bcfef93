/** The outbound-target policy setting (src/lib/outbound): loopback and private targets only when set. */
import { boolSetting } from './settings.ts';

export interface OutboundSettings {
  /**
   * OUTBOUND_ALLOW_PRIVATE_TARGETS=true lets webhooks and destinations reach loopback and private
   * addresses (a receiver on the developer's machine, the test suite). Off in every mode unless set;
   * link-local and metadata addresses stay blocked either way. WEBHOOK_ALLOW_PRIVATE_TARGETS is read
   * as the older name of the same setting.
   */
  allowPrivateTargets: boolean;
}

export function outboundSettings(env: NodeJS.ProcessEnv): OutboundSettings {
  const legacy = boolSetting(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false);
  return { allowPrivateTargets: boolSetting(env, 'OUTBOUND_ALLOW_PRIVATE_TARGETS', legacy) };
}
