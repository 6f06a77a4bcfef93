import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * Webhook signing secrets at rest (ADR 006): every plain-text secret in webhook_settings and
 * webhook_subscriptions is replaced by `wsk1.<base64url(iv ‖ tag ‖ ciphertext)>`, AES-256-GCM under a
 * key derived by HKDF-SHA256 from the server secret `webhook_secret_key` (created here if absent), with
 * the owning row (`webhook_settings:<org_id>` / `webhook_subscriptions:<id>`) as additional data.
 * `secret_hint` keeps the start and end of the plain-text secret so views never decrypt.
 *
 * Self-contained on purpose: this is a frozen copy of the v1 format in src/modules/webhooks/secret-box.ts,
 * so later changes there cannot change what this migration does. Runs in the migrator's transaction, so a
 * failure leaves every secret as it was.
 */
const PREFIX = 'wsk1.';
const KEY_NAME = 'webhook_secret_key';

async function key(db: Kysely<any>): Promise<Buffer> {
  await db
    .insertInto('server_secrets')
    .values({ name: KEY_NAME, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const { value } = await db.selectFrom('server_secrets').select('value').where('name', '=', KEY_NAME).executeTakeFirstOrThrow();
  return Buffer.from(hkdfSync('sha256', Buffer.from(value as string, 'utf8'), Buffer.alloc(0), 'webhook-signing-secret/v1', 32));
}

function seal(k: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', k, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url');
}

function open(k: Buffer, sealed: string, aad: string): string {
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', k, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

const hint = (secret: string) => `${secret.slice(0, 6)}…${secret.slice(-4)}`;

const TABLES = [
  { table: 'webhook_settings', keyColumn: 'org_id' },
  { table: 'webhook_subscriptions', keyColumn: 'id' },
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const { table } of TABLES) await db.schema.alterTable(table).addColumn('secret_hint', 'text').execute();
  const k = await key(db);
  for (const { table, keyColumn } of TABLES) {
    const rows = await db.selectFrom(table).select([keyColumn, 'secret']).execute();
    for (const row of rows as { secret: string; [c: string]: string }[]) {
      if (row.secret.startsWith(PREFIX)) continue;
      const id = row[keyColumn]!;
      await db
        .updateTable(table)
        .set({ secret: seal(k, row.secret, `${table}:${id}`), secret_hint: hint(row.secret) })
        .where(keyColumn, '=', id)
        .execute();
    }
    await db.schema
      .alterTable(table)
      .alterColumn('secret_hint', (c) => c.setNotNull())
      .execute();
  }
}

/** Back to plain text (for a rollback to code older than this migration). */
export async function down(db: Kysely<any>): Promise<void> {
  const k = await key(db);
  for (const { table, keyColumn } of TABLES) {
    const rows = await db.selectFrom(table).select([keyColumn, 'secret']).execute();
    for (const row of rows as { secret: string; [c: string]: string }[]) {
      if (!row.secret.startsWith(PREFIX)) continue;
      const id = row[keyColumn]!;
      await db
        .updateTable(table)
        .set({ secret: open(k, row.secret, `${table}:${id}`) })
        .where(keyColumn, '=', id)
        .execute();
    }
    await db.schema.alterTable(table).dropColumn('secret_hint').execute();
  }
}
