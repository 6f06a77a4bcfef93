/** Commands load their modules lazily, so `ads org create` does not load the HTTP server or DuckDB. */
export const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  serve: async (args) => (await import('./serve.ts')).serveCommand(args),
  org: async (args) => (await import('./accounts.ts')).orgCommand(args),
  users: async (args) => (await import('./accounts.ts')).usersCommand(args),
  keys: async (args) => (await import('./accounts.ts')).keysCommand(args),
  graph: async (args) => (await import('./graph.ts')).graphCommand(args),
};

export const USAGE = `ads: the audience data service

  ads serve [--role all|api|worker]       HTTP API and worker (default: both), port $PORT (8080)
  ads org create <name> [--tier pilot]    prints {org_id, ...}
  ads users add --org <org_id> --email <e> --role owner|admin|member
  ads keys create --org <org_id> [--user <user_id>] [--scopes discovery,creator,account] [--name N]
  ads graph generate --persons N [--seed S]
  ads graph import <file> --mapping <mapping.json>
  ads graph release --minor|--major

Settings come from the environment: DATA_DIR (./data), DATABASE_URL (unset: embedded PGlite in DATA_DIR),
PORT, HOST, LOG_LEVEL, RATE_LIMITS, GRAPH_PERSONS, NODE_ENV. See README.md.`;
