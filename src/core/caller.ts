/**
 * Who is calling an operation: the organization, the user the credential acts for, and what it may do.
 * Built by the transport's authentication (an API-key bearer or an OAuth access token) and handed to
 * every operation, whatever protocol carried it (REST, MCP, A2A).
 */
export interface Caller {
  orgId: string;
  userId: string;
  /** The API key behind an API-key bearer; null for OAuth tokens. */
  keyId: string | null;
  scopes: string[];
  /** When the credential stops working. */
  expiresAt: Date;
  via: 'api_key' | 'oauth';
  /** OAuth only: the client the token was issued to. */
  clientId?: string | null;
}

/** The part of a caller that decides what a resource read may see (private rows belong to their creator). */
export interface Viewer {
  orgId: string;
  userId: string;
}
