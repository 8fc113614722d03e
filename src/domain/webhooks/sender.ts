/**
 * One POST of one event to a subscriber, signed. Each subscription has an agent of its own, so
 * one whose endpoint hangs holds only its own sockets.
 */
import http from 'node:http';
import https from 'node:https';
import { signature } from './events';

export interface Attempt {
  /** The answer's status code (absent: no answer: refused, reset, timed out). */
  code?: number;
  ok: boolean;
  error?: string;
}

export class Sender {
  private readonly agent: http.Agent;
  private readonly target: URL;

  constructor(url: string, private readonly secret: string, private readonly timeoutMs: number, sockets: number) {
    this.target = new URL(url);
    const options = { keepAlive: true, maxSockets: sockets };
    this.agent = this.target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  }

  /** POSTs `body`; a 2xx answer is a delivery, anything else a failed attempt (a redirect is not followed). */
  send(body: string, headers: Record<string, string>): Promise<Attempt> {
    const request = this.target.protocol === 'https:' ? https.request : http.request;
    return new Promise<Attempt>((resolve) => {
      const req = request(this.target, {
        method: 'POST',
        agent: this.agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'archive-records-webhooks',
          'X-Archive-Signature': signature(this.secret, body, Date.now()),
          ...headers,
        },
      }, (res) => {
        const code = res.statusCode ?? 0;
        // The answer's body is not read, but drained so the socket serves the next POST.
        res.resume();
        res.on('end', () => resolve(code >= 200 && code < 300 ? { code, ok: true } : { code, ok: false, error: `answered ${code}` }));
        res.on('error', (err) => resolve({ code, ok: false, error: err.message }));
      });
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err) => resolve({ ok: false, error: err.message }));
      req.end(body);
    });
  }

  /** Drops the agent's sockets: requests in flight fail (their events are sent again later). */
  close(): void {
    this.agent.destroy();
  }
}
