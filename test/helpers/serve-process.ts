import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface Served {
  url: string;
  output: () => string;
  child: ChildProcess;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts a TypeScript entry point in its own process (Node with tsx as a loader, as `npm start` does) and
 * waits for `on http://host:port`. Not the tsx command: it runs the program as a child and, when that
 * child has not acknowledged a relayed SIGTERM within about 60 ms (a busy event loop), kills it with
 * SIGKILL and exits 143, so a graceful stop under load looked like a crash.
 */
export async function serveProcess(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 600_000): Promise<Served> {
  const root = join(import.meta.dirname, '..', '..'); // the project root
  // Its own process group, so a start that times out can be ended with everything it started.
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
      reject(new Error(`did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
    const check = () => {
      const m = output.match(/on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      } else setTimeout(check, 100);
    };
    check();
  });
  return {
    url,
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.on('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
