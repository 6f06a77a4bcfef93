/**
 * Outgoing mail (invitations). Every message is written to the outbox first; with SMTP_URL set it is
 * sent at once through SMTP and marked sent (or its error kept). Without SMTP (development) it stays in
 * the outbox, shown on the local outbox page (/dev/outbox, never served in production).
 */
import type { Kysely, Selectable } from 'kysely';
import nodemailer from 'nodemailer';
import type { DB, MailOutboxTable } from '../../../db/schema.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';

export type OutboxRow = Selectable<MailOutboxTable>;

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface MailerDeps {
  db: Kysely<DB>;
  clock: Clock;
  smtpUrl: string | null;
  from: string;
  log?: { warn(obj: object, msg: string): void };
}

export function createMailer(deps: MailerDeps) {
  const { db, clock } = deps;
  const transport = deps.smtpUrl ? nodemailer.createTransport(deps.smtpUrl) : null;

  async function deliver(row: OutboxRow): Promise<void> {
    if (!transport) return;
    try {
      await transport.sendMail({ from: deps.from, to: row.to_address, subject: row.subject, text: row.text_body });
      await db
        .updateTable('mail_outbox')
        .set({ sent_at: clock.now(), attempts: row.attempts + 1, last_error: null })
        .where('id', '=', row.id)
        .execute();
    } catch (error) {
      const message = (error as Error).message.slice(0, 500);
      deps.log?.warn({ mailId: row.id, err: message }, 'mail could not be sent');
      await db
        .updateTable('mail_outbox')
        .set({ attempts: row.attempts + 1, last_error: message })
        .where('id', '=', row.id)
        .execute();
    }
  }

  return {
    /** Whether mail leaves the machine (SMTP) or stays in the development outbox. */
    transport: transport ? ('smtp' as const) : ('outbox' as const),

    /** Queues a message and, with SMTP configured, sends it now. Returns the outbox id. */
    async send(message: MailMessage): Promise<string> {
      const row: OutboxRow = {
        id: newId('mail'),
        to_address: message.to,
        subject: message.subject,
        text_body: message.text,
        created_at: clock.now(),
        sent_at: null,
        attempts: 0,
        last_error: null,
      };
      await db.insertInto('mail_outbox').values(row).execute();
      await deliver(row);
      return row.id;
    },

    /** The newest messages, for the development outbox page. */
    recent(limit = 50): Promise<OutboxRow[]> {
      return db.selectFrom('mail_outbox').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    },

    close(): void {
      transport?.close();
    },
  };
}

export type Mailer = ReturnType<typeof createMailer>;
