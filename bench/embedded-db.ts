/** The embedded engine in a process of its own (so the load generator does not share its event loop). */
import { startEmbeddedPostgres } from '../db/embedded/pglite-server';

const pg = await startEmbeddedPostgres({ dataDir: process.argv[2] });
process.stdout.write(JSON.stringify({ url: pg.url }) + '\n');
const stop = () => void pg.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
// With an IPC channel (bench:soak): how many client connections are open.
process.on('message', (m: { type?: string }) => {
  if (m?.type === 'connections') process.send?.({ type: 'connections', connections: pg.connections() });
});
process.on('SIGINT', stop);
