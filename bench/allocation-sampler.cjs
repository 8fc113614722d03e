/**
 * What a process allocates, by function: V8's sampling heap profiler, started over the inspector
 * with the objects later collected by minor and major GC counted too (node's --heap-prof keeps
 * only what is still alive when it stops, which misses the garbage a request makes). When the
 * process is stopped (SIGTERM, as the bench scripts stop a server, or Ctrl-C) it prints the bytes
 * sampled and the functions that allocated most. On a noisy machine the bytes per operation hold
 * still where throughput does not. Usage: `-r ./bench/allocation-sampler.cjs` among a server's
 * node flags, e.g. WRITE_PROFILE_NODE_ARGS='-r ./bench/allocation-sampler.cjs' WRITE_PROFILE_OUTPUT=1
 * npx tsx bench/write-profile.ts; ALLOCATION_PROFILE=<file> also writes the profile (for DevTools).
 */
const fs = require('node:fs');
const inspector = require('node:inspector');

const session = new inspector.Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: 16384,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});

function report(profile) {
  const own = new Map();
  let total = 0;
  const visit = (node) => {
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    own.set(key, (own.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  const lines = [`allocated (sampled): ${(total / 1e6).toFixed(1)} MB in all; by function:`];
  for (const [key, bytes] of [...own].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    lines.push(`${(bytes / 1e6).toFixed(1).padStart(8)} MB ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${key}`);
  }
  process.stderr.write(`${lines.join('\n')}\n`);
}

let stopped = false;
function stop() {
  if (stopped) return;
  stopped = true;
  session.post('HeapProfiler.stopSampling', (err, result) => {
    if (err) return process.stderr.write(`allocation sampler: ${err.message}\n`);
    if (process.env.ALLOCATION_PROFILE) fs.writeFileSync(process.env.ALLOCATION_PROFILE, JSON.stringify(result.profile));
    report(result.profile);
  });
}

// Before the server's own handlers, which end the process. A worker thread gets no signals: it
// reports when it ends (the index thread: -r this file in its execArgv).
process.prependListener('SIGTERM', stop);
process.prependListener('SIGINT', stop);
process.on('exit', stop);
