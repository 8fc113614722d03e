/**
 * What the command line tells its user. stdout is kept for a verb's own output (an export stream,
 * doctor's report), so messages and progress go to stderr: readable text on a terminal, one
 * JSON object per line otherwise (the shape of the server's logs), for scripts and log collectors.
 */
import cliProgress from 'cli-progress';

type Fields = Record<string, unknown>;

function write(level: 'info' | 'warn' | 'error', msg: string, fields: Fields = {}): void {
  if (process.stderr.isTTY) {
    const extra = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    process.stderr.write(`${level === 'info' ? '' : `${level}: `}${msg}${extra.length ? `  ${extra.join(' ')}` : ''}\n`);
  } else {
    process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields })}\n`);
  }
}

export const say = {
  info: (msg: string, fields?: Fields) => write('info', msg, fields),
  warn: (msg: string, fields?: Fields) => write('warn', msg, fields),
  error: (msg: string, fields?: Fields) => write('error', msg, fields),
};

/** A failure the user can act on: the message says what went wrong, `fix` what to do about it. */
export class CliError extends Error {
  constructor(message: string, readonly fix?: string, readonly exitCode = 1) {
    super(message);
  }
}

export interface Progress {
  done: number;
  total: number;
}

export interface ProgressReporter {
  update(p: Progress): void;
  stop(): void;
}

/**
 * done/total, rate and ETA: a bar on a terminal; otherwise a JSON line at most every
 * `everyMs` and one at the end, so a log shows a long run advancing without flooding.
 */
export function progressReporter(label: string, everyMs = 2000): ProgressReporter {
  const started = Date.now();
  const rate = (done: number) => done / Math.max(0.001, (Date.now() - started) / 1000);
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {value}/{total} records | {rate} records/s | ETA {eta_formatted}`, stream: process.stderr, etaBuffer: 50 },
      cliProgress.Presets.shades_classic,
    );
    let begun = false;
    return {
      update(p) {
        if (!begun) bar.start(p.total, 0, { rate: 0 });
        begun = true;
        bar.setTotal(Math.max(p.total, p.done));
        bar.update(p.done, { rate: Math.round(rate(p.done)) });
      },
      stop: () => {
        if (begun) bar.stop();
      },
    };
  }
  let last = 0;
  let latest: Progress = { done: 0, total: 0 };
  const line = () => {
    last = Date.now();
    const r = rate(latest.done);
    say.info(label, {
      done: latest.done,
      total: latest.total,
      rate: Math.round(r),
      eta_s: r > 0 ? Math.max(0, Math.round((latest.total - latest.done) / r)) : null,
    });
  };
  return {
    update(p) {
      latest = p;
      if (Date.now() - last >= everyMs) line();
    },
    stop: line,
  };
}
