/**
 * Outgoing email, when SMTP_URL is set (lib/core/env.ts): invitations to the admin area. One transport per
 * process, made on first use. Nothing else in lib/ speaks SMTP.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { env } from './env';

let transport: { url: string; t: Transporter } | undefined;

export const mailConfigured = () => Boolean(env().SMTP_URL);

function from(): string {
  return env().SMTP_FROM ?? `Open Verify <no-reply@${new URL(env().BASE_URL).hostname}>`;
}

export async function sendMail(m: { to: string; subject: string; text: string }): Promise<void> {
  const url = env().SMTP_URL;
  if (!url) throw new Error('SMTP_URL is not set');
  if (transport?.url !== url) transport = { url, t: nodemailer.createTransport(url) };
  await transport.t.sendMail({ from: from(), to: m.to, subject: m.subject, text: m.text });
}
