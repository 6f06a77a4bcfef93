/** Request bounds and the key-for-bearer exchange limits (README "Limits", docs/decisions/027). */
import { intSetting } from './settings.ts';

export interface LimitSettings {
  /** Exchanges per minute per API key (TOKEN_EXCHANGE_PER_KEY_PER_MINUTE, default 20). */
  exchangePerKeyPerMinute: number;
  /** Exchanges per minute per client address (TOKEN_EXCHANGE_PER_ADDRESS_PER_MINUTE, default 120). */
  exchangePerAddressPerMinute: number;
  /** Warehouse statements of one request are interrupted after this many ms (WAREHOUSE_STATEMENT_TIMEOUT_MS, default 30000). */
  warehouseStatementTimeoutMs: number;
}

export function limitSettings(env: NodeJS.ProcessEnv): LimitSettings {
  return {
    exchangePerKeyPerMinute: intSetting(env, 'TOKEN_EXCHANGE_PER_KEY_PER_MINUTE', 20, 1, 1_000_000),
    exchangePerAddressPerMinute: intSetting(env, 'TOKEN_EXCHANGE_PER_ADDRESS_PER_MINUTE', 120, 1, 1_000_000),
    warehouseStatementTimeoutMs: intSetting(env, 'WAREHOUSE_STATEMENT_TIMEOUT_MS', 30_000, 100, 3_600_000),
  };
}
