/**
 * One listening service per test worker for the tool and agent endpoint tests: the OAuth test service
 * (a real port of 127.0.0.1; PUBLIC_URL points at it, so {mcp_url} and {a2a_url} are real URLs, and a
 * full authorization flow can mint resource-bound tokens) over the small generated graph. Tests isolate
 * by organization.
 */
import { startOAuthServer, type OAuthServer } from '../oauth/setup.ts';
import { testGraph } from '../segments/graph.ts';

let shared: Promise<OAuthServer> | null = null;

export function agentServer(): Promise<OAuthServer> {
  shared ??= testGraph().then((g) => startOAuthServer({ dataDir: g.dataDir }));
  return shared;
}
