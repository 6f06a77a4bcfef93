/** Shared bits of the command line: JSON output, usage errors, a progress line. */
export class UsageError extends Error {}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export interface Progress {
  step: string;
  done: number;
  total: number;
}

/** A one-line progress bar on stderr (redrawn in place on a terminal, one line per step otherwise). */
export function progressBar(label: string): (p: Progress) => void {
  const tty = process.stderr.isTTY;
  let lastStep = '';
  return ({ step, done, total }) => {
    const ratio = total > 0 ? Math.min(1, done / total) : 0;
    const width = 30;
    const bar = '#'.repeat(Math.round(ratio * width)).padEnd(width, '.');
    const line = `${label} [${bar}] ${(ratio * 100).toFixed(0).padStart(3)}% ${step}`;
    if (tty) process.stderr.write(`\r${line}${ratio >= 1 ? '\n' : ''}`);
    else if (step !== lastStep || ratio >= 1) process.stderr.write(`${line}\n`);
    lastStep = step;
  };
}
