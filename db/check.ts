import postgres from 'postgres';
import { RuntimeError } from './runtime';

/** Fails with a clear message when the database is unreachable or lacks pgvector. */
export async function checkDatabase(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    const rows = await sql`select 1 from pg_available_extensions where name = 'vector'`.catch((e: Error) => {
      throw new RuntimeError(`Cannot connect to the database: ${e.message}`);
    });
    if (rows.length === 0) {
      throw new RuntimeError('The database has no pgvector extension available; install pgvector on the server.');
    }
  } finally {
    await sql.end({ timeout: 2 });
  }
}
