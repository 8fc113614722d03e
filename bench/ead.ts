/**
 * make bench row: the EAD 2002 finding aid of the bench's tree resource (its 100k children), as a
 * publishing pipeline fetches it: time to the first byte, total time, components per second, and
 * the server's peak RSS after it (the export streams: memory should not grow with the tree).
 */
import { log, peakRssMb, record } from './lib';

export async function benchEadExport(base: string, store: string, pid: number | undefined, uri: string, headers: Record<string, string>, components: number): Promise<void> {
  const rssBefore = Math.round(peakRssMb(pid));
  const started = process.hrtime.bigint();
  const res = await fetch(`${base}${uri.replace('/resources/', '/resource_descriptions/')}.xml`, { headers });
  if (res.status !== 200 || !res.body) throw new Error(`EAD export: ${res.status} ${await res.text()}`);
  let firstByteMs: number | undefined;
  let bytes = 0;
  let written = 0;
  const decoder = new TextDecoder();
  // A tag may be cut between two chunks: the last two characters are read again with the next one
  // (a three-character match cannot lie wholly inside them, so none is counted twice).
  let carry = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    firstByteMs ??= Number(process.hrtime.bigint() - started) / 1e6;
    bytes += chunk.length;
    const text = carry + decoder.decode(chunk, { stream: true });
    written += (text.match(/<c[ >]/g) ?? []).length;
    carry = text.slice(-2);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (written < components) throw new Error(`the EAD export wrote ${written} components, fewer than the ${components} in the tree`);
  const rate = Math.round(written / seconds);
  const rss = Math.round(peakRssMb(pid));
  log(`EAD export: ${written} components, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s, first byte after ${firstByteMs?.toFixed(0)} ms`);
  record({
    workload: `EAD 2002 export of a resource with ${written} components (streamed)`, store,
    value: rate, unit: 'components/s', baseline: null, ratio: null, target: '≥ 5,000 components/s, first byte < 200 ms', met: rate >= 5000 && (firstByteMs ?? 1e9) < 200,
    note: `${seconds.toFixed(1)} s, ${(bytes / 1e6).toFixed(1)} MB; first byte after ${firstByteMs?.toFixed(0)} ms; server peak RSS ${rssBefore} → ${rss} MB`,
  });
}
