/**
 * make bench row: an OAI-PMH harvest, as a harvester does it (ListRecords oai_dc, then each
 * resumption token until the list ends), of every published record of the bench data set (the
 * tree resource's 100k children and the bulk-loaded ones). Reports records per second and the
 * server's peak RSS.
 */
import { log, peakRssMb, record } from './lib';

export async function benchOaiHarvest(base: string, store: string, pid: number | undefined, expectAtLeast: number): Promise<void> {
  const started = process.hrtime.bigint();
  let records = 0;
  let pages = 0;
  let url = `${base}/oai?verb=ListRecords&metadataPrefix=oai_dc`;
  for (;;) {
    const res = await fetch(url);
    const xml = await res.text();
    if (res.status !== 200 || xml.includes('<error ')) throw new Error(`OAI harvest page ${pages + 1}: ${res.status} ${xml.slice(0, 300)}`);
    pages += 1;
    records += xml.split('<record>').length - 1;
    const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(xml)?.[1];
    if (!token) break;
    url = `${base}/oai?verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (records < expectAtLeast) throw new Error(`the OAI harvest saw ${records} records, fewer than the ${expectAtLeast} published`);
  const rate = Math.round(records / seconds);
  log(`OAI harvest: ${records} records in ${pages} pages, ${seconds.toFixed(1)} s`);
  record({
    workload: `OAI-PMH ListRecords oai_dc harvest of ${records} records (resumption tokens, ${pages} pages, one client)`, store,
    value: rate, unit: 'records/s', baseline: null, ratio: null, target: 'report', met: true,
    note: `${seconds.toFixed(1)} s; server peak RSS ${Math.round(peakRssMb(pid))} MB`,
  });
}
