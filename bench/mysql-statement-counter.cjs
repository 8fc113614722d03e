/**
 * Counts the round trips a process makes to MySQL/MariaDB through mysql2, by statement text
 * (numbers and quoted values folded, so one statement of many rows counts once): each call of a
 * connection's query or execute is one round trip (a pipelined batch, store/pipeline.ts, is one
 * query whose statements are listed under its first). For bench/import-sheet-profile.ts: load it
 * with -r, and the profile prints the counts of the job alone (globalThis.mysqlStatementCounts).
 */
const { Connection } = require('mysql2');

let counts = new Map();
const fold = (sql) => sql.replace(/\s+/g, ' ').replace(/'(?:[^'\\]|\\.|'')*'/g, "'…'").replace(/\b\d+\b/g, 'N')
  .replace(/(\((?:\?|N|'…'|NULL)(?:, ?(?:\?|N|'…'|NULL))*\))(?:, ?\1)+/g, '$1, …').slice(0, 220);
for (const method of ['query', 'execute']) {
  const original = Connection.prototype[method];
  Connection.prototype[method] = function (...args) {
    const first = args[0];
    const sql = typeof first === 'string' ? first : first?.sql ?? '';
    const parts = sql.split(/;\n/);
    const key = `${method}: ${fold(parts[0])}${parts.length > 1 ? ` (+${parts.length - 1}: ${[...new Set(parts.slice(1).map((p) => fold(p).slice(0, 40)))].join(' | ')})` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.apply(this, args);
  };
}

globalThis.mysqlStatementCounts = {
  reset() { counts = new Map(); },
  take() { const taken = counts; counts = new Map(); return taken; },
};
