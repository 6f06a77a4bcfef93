import { randomBase62 } from '../../../lib/ids.ts';

/** Client ids say how a client was registered (metadata-document clients are their document's URL). */
export const PARTNER_CLIENT_PREFIX = 'partner_';
export const DYNAMIC_CLIENT_PREFIX = 'dyn_';

export const partnerClientId = () => `${PARTNER_CLIENT_PREFIX}${randomBase62(22)}`;
export const dynamicClientId = () => `${DYNAMIC_CLIENT_PREFIX}${randomBase62(22)}`;
