import { COMMANDS, USAGE } from './cli/index.ts';
import { UsageError } from './cli/output.ts';
import { ConfigError } from './config.ts';
import { EmbeddedStoreBusyError } from './db/embedded-lock.ts';
import { AppError } from './http/errors.ts';

/** The `ads` command line: one dispatcher; each command lives in src/cli/. */
async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const run = command ? COMMANDS[command] : undefined;
  if (!run) {
    process.stdout.write(`${USAGE}\n`);
    process.exitCode = command && command !== 'help' && command !== '--help' ? 2 : 0;
    return;
  }
  try {
    await run(rest);
  } catch (error) {
    const known = error instanceof UsageError || error instanceof ConfigError || error instanceof EmbeddedStoreBusyError || error instanceof AppError;
    process.stderr.write(`ads: ${known || (error as Error).name === 'GraphImportError' ? (error as Error).message : (error as Error).stack}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  }
}

await main(process.argv.slice(2));
