/**
 * Times every SQLite statement of a process (better-sqlite3) and prints the slowest kinds when
 * the process is interrupted: a profile that names statements, where a CPU profile shows only
 * "native code". Usage: node -r ./bench/statement-timer.cjs dist/src/server.js, load it, Ctrl-C.
 */
const Database = require('better-sqlite3');

const stats = new Map();
function note(key, ns) {
  let s = stats.get(key);
  if (!s) stats.set(key, (s = { n: 0, total: 0, samples: [] }));
  s.n++;
  s.total += ns;
  if (s.samples.length < 200_000) s.samples.push(ns);
}

const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  const statement = prepare.call(this, sql);
  const key = sql.replace(/\s+/g, ' ').slice(0, 100);
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statement[method];
    statement[method] = function (...args) {
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        note(key, Number(process.hrtime.bigint() - started));
      }
    };
  }
  return statement;
};

function report() {
  const us = (ns) => (ns / 1000).toFixed(0).padStart(6);
  for (const [key, s] of [...stats].sort((a, b) => b[1].total - a[1].total).slice(0, 30)) {
    const sorted = s.samples.sort((a, b) => a - b);
    const at = (p) => sorted[Math.floor(p * (sorted.length - 1))];
    process.stderr.write(`${(s.total / 1e6).toFixed(0).padStart(7)} ms ${String(s.n).padStart(8)} x  mean ${us(s.total / s.n)} us  p50 ${us(at(0.5))}  p99 ${us(at(0.99))}  max ${us(at(1))}  ${key}\n`);
  }
}
// Ctrl-C, or the SIGTERM with which bench scripts stop a server.
process.prependListener('SIGINT', report);
process.prependListener('SIGTERM', report);
