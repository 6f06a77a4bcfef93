/**
 * The OAuth section: the three protected resources, sign-in and mail. Every URL derives from PUBLIC_URL
 * unless set on its own (docs/decisions/028-oauth-resources-and-tokens.md).
 */
import { ConfigError, intSetting } from './settings.ts';

export interface OAuthResources {
  /** The REST API ({base_url}/v1): tokens for it are accepted by every /v1 operation. */
  api: string;
  /** The tool-protocol endpoint ({mcp_url}). MCP_URL. */
  mcp: string;
  /** The agent-to-agent endpoint ({a2a_url}; JSON-RPC at {a2a_url}/a2a). A2A_URL. */
  a2a: string;
}

export interface OAuthSettings {
  /** The authorization server's issuer: PUBLIC_URL itself (metadata at /.well-known/...). */
  issuer: string;
  resources: OAuthResources;
  /** scrypt cost as log2(N) for password hashes. PASSWORD_SCRYPT_LOG_N (default 17: 128 MiB, OWASP). */
  passwordScryptLogN: number;
  /** Hours an invitation link stays valid. INVITATION_TTL_HOURS. */
  invitationTtlHours: number;
  /** SMTP transport for outgoing mail (smtp:// or smtps:// URL); null keeps mail in the outbox (development). SMTP_URL. */
  smtpUrl: string | null;
  /** From address of outgoing mail. MAIL_FROM. */
  mailFrom: string;
}

function resourceUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (!raw) return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (url.hash || url.search) throw new ConfigError(`${name} must not carry a query or fragment (it is an OAuth resource indicator)`);
  return raw.replace(/\/+$/, '');
}

export function oauthSettings(env: NodeJS.ProcessEnv, publicUrl: string): OAuthSettings {
  const smtpUrl = env.SMTP_URL || null;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  return {
    issuer: publicUrl,
    resources: {
      api: `${publicUrl}/v1`,
      mcp: resourceUrl(env, 'MCP_URL', `${publicUrl}/mcp`),
      a2a: resourceUrl(env, 'A2A_URL', `${publicUrl}/agent`),
    },
    passwordScryptLogN: intSetting(env, 'PASSWORD_SCRYPT_LOG_N', 17, 10, 20),
    invitationTtlHours: intSetting(env, 'INVITATION_TTL_HOURS', 72, 1, 24 * 30),
    smtpUrl,
    mailFrom: env.MAIL_FROM || `Audience Data Service <no-reply@${new URL(publicUrl).hostname}>`,
  };
}
