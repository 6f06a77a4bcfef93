/**
 * The commands of `ads`, each with its own help. Commands load their modules lazily, so
 * `ads org create` does not load the HTTP server or DuckDB.
 */
export interface Command {
  summary: string;
  usage: string;
  run(args: string[]): Promise<void>;
}

export const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'run the HTTP API and the job worker',
    usage: `ads serve [--role all|api|worker]
  Runs the HTTP API and the job worker in one process (all, the default) or one role. Listens on
  $HOST:$PORT (0.0.0.0:8080). On the first start of an empty store it creates a demo organization and
  prints its API key once, and generates the default synthetic graph in the background.`,
    run: async (args) => (await import('./serve.ts')).serveCommand(args),
  },
  org: {
    summary: 'create or list organizations',
    usage: `ads org create <name> [--tier paygo|pilot|growth|scale|enterprise] [--owner <email>]
  Creates an organization (tier pilot by default); with --owner, its owner in the same step.
ads org list
  Lists the organizations with their tiers and owners.`,
    run: async (args) => (await import('./accounts.ts')).orgCommand(args),
  },
  users: {
    summary: 'add users to an organization',
    usage: `ads users add --org <org_id> --email <email> --role owner|admin|member [--password-stdin]
  Adds a verified user. With --password-stdin, reads a sign-in password (for OAuth consent and device
  approval) from standard input.`,
    run: async (args) => (await import('./accounts.ts')).usersCommand(args),
  },
  keys: {
    summary: 'issue API keys; rotate the master key, roll signing keys',
    usage: `ads keys create --org <org_id> [--user <user_id>] [--scopes discovery,creator,account] [--name <name>]
  Issues a key for the user (default: the organization's first owner) and prints raw_key once.
ads keys rotate-master
  Re-wraps every key the database holds under a new master key (ADR 026). With a key file (DATA_DIR/
  master.key or MASTER_KEY_FILE) the file is replaced; with ADS_MASTER_KEY give the new key in
  ADS_NEW_MASTER_KEY, then set it as ADS_MASTER_KEY everywhere. Restart every process afterwards.
  Person ids and issued tokens stay valid.
ads keys roll-signing
  New bearer-token and object-URL signing keys. The old ones still verify for one lifetime (1 hour for
  tokens, 24 hours for URLs), so nothing already handed out breaks. The person-id key never rolls.`,
    run: async (args) => (await import('./accounts.ts')).keysCommand(args),
  },
  'oauth-clients': {
    summary: 'register OAuth partner clients',
    usage: `ads oauth-clients create --name <name> --redirect-uri <url> [--redirect-uri <url>...] [--public] [--native]
  Registers a partner application for the authorization-code flow. Confidential clients (the default)
  get a client_secret, printed once; --public registers a PKCE-only client, --native a native app.`,
    run: async (args) => (await import('./accounts.ts')).oauthClientsCommand(args),
  },
  billing: {
    summary: 'billing of an organization: balance, ledger, contract, credits, boundary',
    usage: `ads billing show --org <org_id>                  balance, contract terms, credits and commits, auto-recharge
ads billing ledger --org <org_id> [--kind <kind>]   usage ledger entries (USD)
ads billing setup --org <org_id> [--mode prepaid|invoiced] [--parent <org_id> | --no-parent] [--cadence monthly|annual]
ads billing grant --org <org_id> --kind paid_commit|promotional_credit --amount <USD> [--priority N]
                  [--product-ids a,b] [--tags usage,delivery,match] [--starts <ISO>] [--ends <ISO>] [--name <name>]
ads billing advance [--org <org_id>]                applies due billing boundaries (scheduled contract changes);
                                                    --org makes that organization's boundary due now (development only)
ads billing reconcile --org <org_id>                ledger entries against balance movements (exit 1 on a difference)
ads billing recharge-check                          runs the auto-recharge job once
ads billing provider [--port 4242]                  runs the built-in payment provider (development and tests)`,
    run: async (args) => (await import('./billing.ts')).billingCommand(args),
  },
  graph: {
    summary: 'make, import and manage identity graph releases',
    usage: `ads graph generate --persons N [--seed S]        a new synthetic graph (a new major release)
ads graph import <file> --mapping <mapping.json>  the operator's own graph (csv or parquet) as a new major release
ads graph release --minor|--major [--seed S]      an incremental update, or a rebuild with churn
ads graph releases [--prune]                      list releases and what still uses them; --prune removes the unused`,
    run: async (args) => (await import('./graph.ts')).graphCommand(args),
  },
  matching: {
    summary: 'refit the matching parameters of the current release',
    usage: `ads matching refit [--pairs 200000] [--rows 20000] [--seed 101] [--record-only] [--tf]
  Estimates the Fellegi-Sunter parameters from the current release (u from random person pairs, m by EM
  over the blocked pairs of a damaged sample list, name term frequencies, the confidence curve and the I
  threshold) and writes them beside the release as <release>.match-params.json; the matcher then scores
  with them. --record-only writes them but keeps the built-in weights; --tf also adjusts an exact name
  agreement by the name's frequency (docs/decisions/045).`,
    run: async (args) => (await import('./matching.ts')).matchingCommand(args),
  },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return `ads: the audience data service

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ads ${name.padEnd(width)}  ${c.summary}`)
  .join('\n')}

Run "ads help <command>" or "ads <command> --help" for a command's options.
Settings come from the environment (DATA_DIR, DATABASE_URL, PORT, HOST, PUBLIC_URL, LOG_LEVEL, ...): see README.md.`;
}
