import { PGlite } from '@electric-sql/pglite';
import { execSync } from 'node:child_process';
const dir = '/tmp/me/waltest-' + Date.now();
const db = new PGlite(dir);
await db.exec('CREATE TABLE t (id int, data bytea)');
const du = () => execSync(`du -sm ${dir}/pg_wal`).toString().trim();
const blob = "(SELECT decode(string_agg(md5(random()::text || g || i), ''), 'hex') FROM generate_series(1, 16384) i)";
for (let round = 0; round < 12; round++) {
  await db.exec(`INSERT INTO t SELECT g, ${blob} FROM generate_series(1, 600) g`);
  await db.exec('DELETE FROM t');
  if (process.argv[2] === 'cp' && round % 2 === 1) { await db.exec('VACUUM t'); await db.exec('CHECKPOINT'); }
  console.log('round', round, du());
}
console.log('after writes', du());
await db.exec('VACUUM t');
console.log('after vacuum', du());
await db.exec('CHECKPOINT');
console.log('after checkpoint', du());
const r = await db.query("SELECT name, setting FROM pg_settings WHERE name IN ('max_wal_size','min_wal_size','wal_keep_size')");
console.log(r.rows);
await db.exec("ALTER SYSTEM SET max_wal_size = '128MB'").catch(e => console.log('alter failed', e.message));
await db.exec("SELECT pg_reload_conf()").catch(e => console.log('reload failed', e.message));
const r2 = await db.query("SELECT name, setting FROM pg_settings WHERE name IN ('max_wal_size')");
console.log(r2.rows);
await db.exec('CHECKPOINT');
console.log('after 2nd checkpoint', du());
await db.close();
execSync(`rm -rf ${dir}`);
