/** A webhook receiver on 127.0.0.1 for the tests and the bench: checks each POST's signature and keeps what it accepted. */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  event: any;
  headers: http.IncomingHttpHeaders;
  atMs: number;
  /** The status it was answered. */
  status: number;
}

export interface Receiver {
  url: string;
  /** Every POST, in the order they arrived. */
  all: Received[];
  /** The events answered 2xx. */
  accepted(): any[];
  /** The status the next POST is answered (0: never answered); every POST of a wrong signature gets 401. */
  answer: (event: any) => number;
  close(): Promise<void>;
}

/** Checks `X-Archive-Signature: t=<unix>,v1=<hex>` against the body as docs/webhooks.md tells a receiver to. */
export function verifySignature(secret: string, header: string | undefined, body: string, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=') as [string, string]));
  if (!parts.t || !parts.v1) return false;
  if (Math.abs(Date.now() / 1000 - Number(parts.t)) > toleranceSeconds) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${parts.t}.${body}`).digest('hex');
  return expected.length === parts.v1.length && crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(parts.v1));
}

export async function startReceiver(secret: string): Promise<Receiver> {
  const hanging: http.ServerResponse[] = [];
  const r: Receiver = {
    url: '',
    all: [],
    accepted: () => r.all.filter((x) => x.status >= 200 && x.status < 300).map((x) => x.event),
    answer: () => 200,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const event = JSON.parse(body);
      const status = verifySignature(secret, req.headers['x-archive-signature'] as string, body) ? r.answer(event) : 401;
      r.all.push({ event, headers: req.headers, atMs: Date.now(), status });
      if (status === 0) {
        hanging.push(res);
        return;
      }
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return r;
}

/** Waits until `ok()` holds (polling), or fails with `what`. */
export async function until(ok: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
