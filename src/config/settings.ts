/** Parsing helpers for settings read from the environment: each failure names the variable and the fix. */
export class ConfigError extends Error {}

export function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** `true` or `false`; unset or empty gives the fallback. */
export function boolSetting<F extends boolean | null>(env: NodeJS.ProcessEnv, name: string, fallback: F): boolean | F {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false`);
  return raw === 'true';
}

/** A JSON object setting, e.g. RATE_LIMITS='{"pilot":100}'; `example` shows the shape in the error. */
export function jsonObjectSetting(env: NodeJS.ProcessEnv, name: string, example: string): Record<string, unknown> | null {
  const raw = env[name];
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new ConfigError(`${name} must be a JSON object such as ${example}`);
}
