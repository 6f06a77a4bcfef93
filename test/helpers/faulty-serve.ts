/**
 * `ads serve`, the command's own code path, with two routes that fail outside any handler: one
 * throws from a later tick (an uncaught exception), one leaves a rejected promise nobody awaits.
 * Started as a process by test/security/process-failures.test.ts.
 */
import { serveCommand } from '../../src/cli/serve.ts';

await serveCommand([], {
  beforeListen: (built) => {
    built.app.get('/test/throw-later', async () => {
      setImmediate(() => {
        throw new Error('thrown outside any handler');
      });
      return { ok: true };
    });
    built.app.get('/test/reject-later', async () => {
      void Promise.reject(new Error('rejected, never awaited'));
      return { ok: true };
    });
  },
});
