/**
 * Counts every SQLite statement a process runs through better-sqlite3, by its SQL text, for
 * bench/statements.ts: on SIGUSR2 it writes the counts since the last SIGUSR2 to
 * STATEMENT_COUNTS_FILE (JSON, {sql: count}) and starts again from zero. Usage:
 * node -r ./bench/statement-counter.cjs dist/src/server.js. A statement here is a call into
 * SQLite in the same process, not a round trip as on MariaDB.
 */
const fs = require('node:fs');
const Database = require('better-sqlite3');

let counts = new Map();
const note = (sql) => {
  const key = sql.replace(/\s+/g, ' ').trim();
  counts.set(key, (counts.get(key) ?? 0) + 1);
};

const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  const statement = prepare.call(this, sql);
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statement[method];
    statement[method] = function (...args) {
      note(sql);
      return original.apply(this, args);
    };
  }
  return statement;
};

const exec = Database.prototype.exec;
Database.prototype.exec = function (sql) {
  note(`EXEC ${sql}`);
  return exec.call(this, sql);
};

// better-sqlite3's own transaction functions issue BEGIN and COMMIT without a prepared statement.
const transaction = Database.prototype.transaction;
Database.prototype.transaction = function (fn) {
  const wrapped = transaction.call(this, fn);
  const counted = (run) => function (...args) {
    note('BEGIN (db.transaction)');
    return run.apply(this, args);
  };
  const result = counted(wrapped);
  for (const variant of ['deferred', 'immediate', 'exclusive']) result[variant] = counted(wrapped[variant]);
  return result;
};

process.on('SIGUSR2', () => {
  fs.writeFileSync(process.env.STATEMENT_COUNTS_FILE, JSON.stringify(Object.fromEntries(counts)));
  counts = new Map();
});
