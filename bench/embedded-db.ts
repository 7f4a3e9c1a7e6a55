/** The embedded engine in a process of its own (so the load generator does not share its event loop), with its maintenance as the launcher runs it. */
import { startEmbeddedPostgres } from '../lib/db/embedded/pglite-server';
import { scheduleMaintenance } from '../lib/db/embedded/maintenance';

const pg = await startEmbeddedPostgres({ dataDir: process.argv[2] });
// The launcher's maintenance (server/launch.ts), its log lines on stderr (stdout carries this process's answers).
const maintenance = scheduleMaintenance(pg, { log: (line) => process.stderr.write(line + '\n') });
await maintenance.startup;
process.stdout.write(JSON.stringify({ url: pg.url }) + '\n');
const stop = () =>
  void maintenance
    .stop()
    .then(() => pg.stop())
    .then(() => process.exit(0));
process.on('SIGTERM', stop);
// With an IPC channel (bench:soak): how many client connections are open.
process.on('message', (m: { type?: string }) => {
  if (m?.type === 'connections') process.send?.({ type: 'connections', connections: pg.connections() });
});
process.on('SIGINT', stop);
