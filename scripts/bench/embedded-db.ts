/** The embedded engine in a process of its own (so the load generator does not share its event loop). */
import { startEmbeddedPostgres } from '../../db/embedded/pglite-server';

const pg = await startEmbeddedPostgres({ dataDir: process.argv[2] });
process.stdout.write(JSON.stringify({ url: pg.url }) + '\n');
const stop = () => void pg.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
