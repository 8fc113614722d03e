/**
 * OAI-PMH routes as ArchivesSpace has them: `/oai` (GET, and POST with form parameters as the
 * protocol allows; public: it shows only published, unsuppressed records), `/oai_config` (GET
 * the one configuration record as a list; POST to change it, create_repository) and
 * `/oai_sample` (an HTML page of sample requests).
 */
import { errors } from '../../errors';
import { OAI_CONFIG_ID, OAI_CONFIG_TYPE, readOaiConfigRecord, saveOaiConfig } from '../oai/config';
import { oaiFormats } from '../oai/formats';
import { oaiResponse } from '../oai/provider';
import { escapeAttribute, escapeText, XmlWriter } from '../xml';
import type { Call, Endpoint, Reply } from '../../records/endpoint';
import { json } from '../../records/endpoint';

async function answer(call: Call): Promise<Reply> {
  // Path parameters and the session header are not OAI arguments.
  const write = await oaiResponse(call.s, call.rawParams ?? {});
  return {
    contentType: 'text/xml; charset=utf-8',
    stream: async (send) => {
      const w = new XmlWriter(send);
      w.declaration();
      await write(w);
      await w.end();
    },
  };
}

const OAI_SUMMARY = 'Handle an OAI-PMH request (verb, metadataPrefix, from, until, set, identifier, resumptionToken; protocol errors answer 200 with an OAI error element)';

async function saveConfig(call: Call): Promise<Reply> {
  const result = await saveOaiConfig(call.s, call.actor!, call.body!.record, call.body!.warnings);
  // ArchivesSpace's configuration always exists, so a save always reports an update.
  return json({ ...result, status: 'Updated' });
}

function samplePage(name: string, baseUrl: string): string {
  const link = (query: string, label: string) => `<li><a href="${escapeAttribute(`${baseUrl}?${query}`)}">${escapeText(label)}</a></li>`;
  const prefixes = oaiFormats().map((f) => `<option>${escapeText(f.prefix)}</option>`).join('');
  const form = (verb: string, extra: string) => `
  <form action="${escapeAttribute(baseUrl)}" method="get">
    <fieldset><legend>${verb}</legend>
      <input type="hidden" name="verb" value="${verb}"/>
      <div><label for="${verb}-prefix">metadataPrefix</label> <select id="${verb}-prefix" name="metadataPrefix">${prefixes}</select></div>
      ${extra}
      <input type="submit" value="Send"/>
    </fieldset>
  </form>`;
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeText(name)}: sample OAI-PMH requests</title>
<style>body{font-family:sans-serif;max-width:50em;margin:2em auto}fieldset{margin-bottom:1em}label{display:inline-block;width:10em}</style></head>
<body>
  <h1>${escapeText(name)}: sample OAI-PMH requests</h1>
  <p>Each link or form sends one request to this OAI-PMH provider.</p>
  <ul>
    ${link('verb=Identify', 'Identify')}
    ${link('verb=ListSets', 'ListSets')}
    ${link('verb=ListMetadataFormats', 'ListMetadataFormats')}
  </ul>
  ${form('ListIdentifiers', '<div><label for="li-set">set</label> <input id="li-set" name="set"/></div>')}
  ${form('ListRecords', '<div><label for="lr-set">set</label> <input id="lr-set" name="set"/></div><div><label for="lr-from">from</label> <input id="lr-from" name="from" placeholder="2024-01-01"/></div><div><label for="lr-until">until</label> <input id="lr-until" name="until" placeholder="2024-12-31"/></div>')}
  ${form('GetRecord', '<div><label for="gr-id">identifier</label> <input id="gr-id" name="identifier"/></div>')}
</body>
</html>
`;
}

export function oaiEndpoints(): Endpoint[] {
  return [
    { method: 'get', path: '/oai', permission: null, produces: 'text/xml', summary: OAI_SUMMARY, handle: answer },
    { method: 'post', path: '/oai', permission: null, produces: 'text/xml', summary: `${OAI_SUMMARY}; POST takes them as an application/x-www-form-urlencoded body`, handle: answer },
    {
      method: 'get', path: '/oai_sample', permission: null, produces: 'text/html',
      contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      summary: 'A page of sample OAI-PMH requests',
      handle: async (call) => {
        const config = await readOaiConfigRecord(call.s);
        return { text: samplePage(config.oai_repository_name, call.s.config.oaiBaseUrl), contentType: 'text/html; charset=utf-8' };
      },
    },
    {
      method: 'get', path: '/oai_config', permission: null,
      summary: 'Get the OAI-PMH configuration record (a list of one)',
      handle: async (call) => json([await readOaiConfigRecord(call.s)]),
    },
    {
      method: 'post', path: '/oai_config', permission: 'create_repository', body: OAI_CONFIG_TYPE, errors: ['Conflict'],
      summary: 'Update the OAI-PMH configuration (repository name, identifier prefix, admin email, sets)',
      handle: saveConfig,
    },
    {
      method: 'post', path: '/oai_config/:id', permission: 'create_repository', body: OAI_CONFIG_TYPE, errors: ['NotFound', 'Conflict'],
      params: [{ name: 'id', type: 'integer', required: true }],
      summary: 'Update the OAI-PMH configuration record (there is one: id 1)',
      handle: async (call) => {
        if (call.params.id !== OAI_CONFIG_ID) throw errors.notFound(call.s.registry.type(OAI_CONFIG_TYPE).model);
        return saveConfig(call);
      },
    },
  ];
}
