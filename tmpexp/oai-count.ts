import { profileAgainstServer } from '../bench/lib';
import { childBody } from '../bench/data';
import knexFactory from 'knex';

profileAgainstServer('oai-count', {}, [], async (server, dbUrl) => {
  const login = await (await fetch(`${server.base}/users/admin/login?password=admin`, { method: 'POST' })).json() as { session: string };
  const H = { 'X-ArchivesSpace-Session': login.session, 'content-type': 'application/json' };
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(server.base + url, { method, headers: H, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const repo = await call('POST', '/repositories', { repo_code: `O${Date.now()}`, name: 'OAI', publish: true });
  const resource = await call('POST', `/repositories/${repo.id}/resources`, {
    id_0: 'R', title: 'R', level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn', publish: true,
    dates: [{ date_type: 'inclusive', label: 'creation', begin: '1850', end: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng' } }],
  });
  const children = [];
  for (let j = 0; j < 1000; j++) children.push({ ...childBody(j, resource.uri), publish: true });
  await call('POST', `/repositories/${repo.id}/resources/${resource.id}/children`, { jsonmodel_type: 'archival_record_children', children });
  const admin = knexFactory({ client: 'mysql2', connection: dbUrl.replace(/\/[^/]*$/, '/') });
  const q = async () => Number(((await admin.raw("SHOW GLOBAL STATUS LIKE 'Questions'"))[0] as any)[0].Value);
  await new Promise((r) => setTimeout(r, 2000));
  if (process.env.GENERAL_LOG) await admin.raw("SET GLOBAL general_log=1");
  const before = await q();
  const t = Date.now();
  let records = 0; let pages = 0;
  let url = `${server.base}/oai?verb=ListRecords&metadataPrefix=${process.env.PREFIX ?? 'oai_dc'}`;
  for (;;) {
    const xml = await (await fetch(url)).text();
    pages++; records += xml.split('<record>').length - 1;
    const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(xml)?.[1];
    if (!token) break;
    url = `${server.base}/oai?verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`;
  }
  const after = await q();
  if (process.env.GENERAL_LOG) await admin.raw("SET GLOBAL general_log=0");
  console.log(`${records} records, ${pages} pages, ${Date.now() - t} ms, ${((after - before) / records).toFixed(2)} statements per record`);
  await admin.destroy();
});
