import { COMMANDS, usage } from './cli/index.ts';
import { UsageError } from './cli/output.ts';
import { ConfigError } from './config/index.ts';
import { EmbeddedStoreBusyError } from './db/embedded-lock.ts';
import { MasterKeyError } from './db/master-key.ts';
import { DomainError } from './core/errors.ts';

const HELP = new Set(['help', '--help', '-h']);

/** Errors the operator can act on are shown as one line; anything else is a bug and keeps its stack. */
function isKnown(error: unknown): boolean {
  return (
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof EmbeddedStoreBusyError ||
    error instanceof MasterKeyError ||
    error instanceof DomainError ||
    (error as Error)?.name === 'GraphImportError' ||
    (error as { code?: string })?.code?.startsWith?.('ERR_PARSE_ARGS') === true
  );
}

/** The `ads` command line: one dispatcher; each command lives in src/cli/. */
async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || HELP.has(name)) {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic && !COMMANDS[topic]) return fail(`unknown command "${topic}"\n\n${usage()}`, 2);
    process.stdout.write(`${topic ? COMMANDS[topic]!.usage : usage()}\n`);
    return;
  }
  const command = COMMANDS[name];
  if (!command) return fail(`unknown command "${name}"\n\n${usage()}`, 2);
  if (rest.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(`${command.usage}\n`);
    return;
  }
  try {
    await command.run(rest);
  } catch (error) {
    const usageError = error instanceof UsageError || (error as { code?: string })?.code?.startsWith?.('ERR_PARSE_ARGS') === true;
    const text = usageError
      ? `${(error as Error).message}\n\nusage:\n${command.usage}`
      : isKnown(error)
        ? (error as Error).message
        : (error as Error).stack;
    fail(text ?? String(error), usageError ? 2 : 1);
  }
}

function fail(message: string, code: number): void {
  process.stderr.write(`ads: ${message}\n`);
  process.exitCode = code;
}

await main(process.argv.slice(2));
