/**
 * The embedded store's lock after kill -9 (issue 12): a dead holder is detected even while it is an
 * unreaped zombie or when its pid now belongs to another process; a live holder still keeps others out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireEmbeddedLock, EmbeddedStoreBusyError, processInfo } from '../../src/db/embedded-lock.ts';

const root = join(import.meta.dirname, '..', '..');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Blocks this thread (the event loop does not run, so Node cannot reap a child meanwhile). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

async function holderProcess(dataDir: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import('./src/db/embedded-lock.ts').then((m) => { m.acquireEmbeddedLock(${JSON.stringify(dataDir)}); console.log('locked'); setInterval(() => {}, 1000); })`,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('locked')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
  return child;
}

const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

describe('embedded store lock', () => {
  it('a live holder keeps a second process out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ads-lock-'));
    const holder = await holderProcess(dir);
    expect(() => acquireEmbeddedLock(dir)).toThrow(EmbeddedStoreBusyError);
    expect(JSON.parse(readFileSync(join(dir, 'pg.lock'), 'utf8')).pid).toBe(holder.pid);
  });

  it('an immediate restart after kill -9 gets the store, even while the killed holder is an unreaped zombie', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ads-lock-'));
    const holder = await holderProcess(dir);
    holder.kill('SIGKILL');
    // Wait, without letting the event loop reap it, until the kernel shows the holder as a zombie.
    for (let i = 0; i < 500 && processInfo(holder.pid!)?.state !== 'Z'; i++) pause(10);
    expect(processInfo(holder.pid!)?.state).toBe('Z');
    const release = acquireEmbeddedLock(dir);
    expect(JSON.parse(readFileSync(join(dir, 'pg.lock'), 'utf8')).pid).toBe(process.pid);
    release();
  });

  it('a holder whose pid now belongs to another process, or who ran before a reboot or on another host, is stale', async () => {
    const other = spawn('sleep', ['30']);
    children.push(other);
    await new Promise((resolve) => other.once('spawn', resolve));
    const info = processInfo(other.pid!)!;
    const dir = mkdtempSync(join(tmpdir(), 'ads-lock-'));
    const write = (h: object) => writeFileSync(join(dir, 'pg.lock'), JSON.stringify(h));
    const me = { pid: other.pid, host: hostname(), boot: bootId(), start: info.start };

    write(me); // exactly that live process: refused
    expect(() => acquireEmbeddedLock(dir)).toThrow(EmbeddedStoreBusyError);
    for (const stale of [
      { ...me, start: String(Number(info.start) - 1) },
      { ...me, boot: 'another-boot' },
      { ...me, host: 'another-host' },
    ]) {
      write(stale);
      acquireEmbeddedLock(dir)();
    }
  });
});
