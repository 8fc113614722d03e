import assert from 'node:assert/strict';
import { importers } from '../../src/exchange/import';
import { ImportFailed, type ImportOutput } from '../../src/exchange/import/types';
import { STORE, TestApp } from '../helpers';
import { importFixture } from './import-fixture';
import { bumpEnumerationVersion, insertValues, lastPosition, nextEnumerationId } from '../../src/store/value-lists';

const quiet = (): ImportOutput & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, log: (level, message) => lines.push(`${level}: ${message}`), progress: () => undefined };
};

/**
 * A finding aid as archives write them: name sources and container types ArchivesSpace's lists do
 * not start with, empty notes, and (when `untitled`) a component with neither title nor date.
 */
const finding = (id: string, opts: { untitled?: boolean; container?: string } = {}) => `<?xml version="1.0" encoding="UTF-8"?>
<ead xmlns="urn:isbn:1-931666-22-9">
  <eadheader><eadid>${id}</eadid><filedesc><titlestmt><titleproper>Papers of ${id}</titleproper></titlestmt></filedesc>
    <profiledesc><langusage><language langcode="eng">English</language></langusage></profiledesc></eadheader>
  <archdesc level="collection">
    <did><unittitle>Papers of ${id}</unittitle><unitid>${id}</unitid><unitdate normal="1900/1950">1900-1950</unitdate>
      <physdesc><extent>2 linear feet</extent></physdesc><langmaterial><language langcode="eng"/></langmaterial>
      <origination><persname source="lcnaf" authfilenumber="n79-${id}">Writer, Ann ${id}</persname></origination>
      <abstract/></did>
    <scopecontent/>
    <accessrestrict><head>Conditions Governing Access</head></accessrestrict>
    <controlaccess><corpname source="viaf">Society of ${id}</corpname></controlaccess>
    <dsc>
      <c01 level="series"><did><unittitle>Correspondence</unittitle>
        <container type="${opts.container ?? 'flatbox'}" label="Mixed Materials">1</container></did>
        <c02 level="file"><did><unittitle>Letters</unittitle><unitdate>1901</unitdate>
          <container type="legalbox" label="Folder">2</container></did><scopecontent><p/></scopecontent></c02>
${opts.untitled ? `        <c02 level="file"><did>
          <container type="legalbox" label="Folder">3</container><container type="folder">7</container></did></c02>` : ''}
      </c01>
    </dsc>
  </archdesc>
</ead>
`;

/** An EAC-CPF record as some systems export it: inside an envelope element. */
const ENVELOPED = `<?xml version="1.0" encoding="UTF-8"?>
<export date="2024-05-01">
  <eac-cpf xmlns="urn:isbn:1-931666-33-4">
    <control><recordId>envelope-001</recordId><maintenanceStatus>new</maintenanceStatus>
      <maintenanceAgency><agencyName>Example Archives</agencyName></maintenanceAgency></control>
    <cpfDescription><identity><entityType>person</entityType>
      <nameEntry><part localType="surname">Lovelace</part><part localType="forename">Ada</part><authorizedForm>local</authorizedForm></nameEntry>
    </identity><description><existDates><dateRange><fromDate standardDate="1815">1815</fromDate><toDate standardDate="1852">1852</toDate></dateRange></existDates></description></cpfDescription>
  </eac-cpf>
</export>
`;

describe(`real-world quirks of imported files (${STORE})`, function () {
  this.timeout(120_000);
  const fx = importFixture('QUIRKS', 'Quirks');
  let t: TestApp, repo: number, H: Record<string, string>;
  const admin = { username: 'admin' };
  const { write, count } = fx;
  const listed = async (list: string) => (await t.http.get(`/config/enumerations/names/${list}`).set(H)).body.values as string[];

  before(async () => {
    ({ t, repo, H } = fx);
  });

  it('refuses a component with neither title nor date, naming its line and the fix; a failed file leaves no value in the lists', async () => {
    const before = await count();
    await assert.rejects(importers.ead_xml.run(t.services, repo, admin, write('untitled.xml', finding('U1', { untitled: true, container: 'oversizebox' })), quiet()), (err: Error) => {
      assert.ok(err instanceof ImportFailed, String(err));
      assert.match(err.message, /untitled\.xml: line 18, ead\/archdesc\/dsc\/c01\/c02: a component with neither title nor date; give it a unittitle or a unitdate, or import with the untitled_components option/);
      return true;
    });
    assert.equal(await count(), before);
    assert.ok(!(await listed('container_type')).includes('oversizebox'), 'the failed file added nothing to the list');
    assert.ok(!t.services.enums.get('container_type')!.values.includes('oversizebox'), 'nor to the copy the next validation reads');
  });

  it('adds values to editable lists as ArchivesSpace\'s importer does, seen by the next file; skips empty notes', async () => {
    const out = quiet();
    const first = await importers.ead_xml.run(t.services, repo, admin, write('first.xml', finding('F1')), out);
    assert.equal(first.counts.archival_object, 2);
    for (const [list, value] of [['name_source', 'lcnaf'], ['name_source', 'viaf'], ['container_type', 'flatbox'], ['container_type', 'legalbox'], ['instance_instance_type', 'folder']]) {
      assert.ok((await listed(list)).includes(value), `${list} has ${value}`);
      assert.ok(out.lines.some((l) => l.includes(`${list}: ${value}`)), `${list}: ${value} is logged`);
    }
    const second = await importers.ead_xml.run(t.services, repo, admin, write('second.xml', finding('F2')), quiet());
    assert.equal(second.counts.archival_object, 2, 'the next file validates against the values the first added');
    const resource = (await t.http.get(first.created[first.created.findIndex((u) => u.includes('/resources/'))]).query({ 'resolve[]': 'linked_agents' }).set(H)).body;
    assert.deepEqual(resource.notes, [], 'empty notes (<abstract/>, <scopecontent/>, a head alone) are skipped');
    assert.equal(resource.linked_agents[0]._resolved.names[0].source, 'lcnaf');
    const letters = (await t.http.get(first.created.filter((u) => u.includes('/archival_objects/'))[1]).set(H)).body;
    assert.deepEqual(letters.notes, []);
    assert.equal(letters.instances[0].instance_type, 'folder');
  });

  it('finds a value another process added to a list since this one read it', async () => {
    // The lists have the file's other values already (so that map_case is the one the import misses).
    await importers.ead_xml.run(t.services, repo, admin, write('m0.xml', finding('M0')), quiet());
    // Another app process adds "map_case" to the container types: this process's catalogue does not have it yet.
    await t.services.db.transaction(async (trx) => {
      await insertValues(trx, [{ id: await nextEnumerationId(trx, 'enumeration_values'), enum_name: 'container_type', value: 'map_case', position: (await lastPosition(trx, 'container_type')) + 1 }]);
      await bumpEnumerationVersion(trx);
    });
    assert.ok(!t.services.enums.get('container_type')!.values.includes('map_case'));
    const out = quiet();
    const report = await importers.ead_xml.run(t.services, repo, admin, write('map-case.xml', finding('M1', { container: 'map_case' })), out);
    assert.equal(report.counts.archival_object, 2);
    assert.ok(!out.lines.some((l) => l.includes('container_type: map_case')), 'not added a second time');
    assert.equal((await listed('container_type')).filter((v) => v === 'map_case').length, 1);
  });

  it('imports a component with neither title nor date when asked (untitled_components), titled from its container, with a warning', async () => {
    const out = quiet();
    const report = await importers.ead_xml.run(t.services, repo, admin, write('untitled-ok.xml', finding('U2', { untitled: true }), { untitled_components: true }), out);
    assert.equal(report.counts.archival_object, 3);
    const untitled = (await t.http.get(report.created.filter((u) => u.includes('/archival_objects/'))[2]).set(H)).body;
    assert.equal(untitled.title, 'Legalbox 3, Folder 7');
    assert.ok(out.lines.some((l) => /line \d+, ead\/archdesc\/dsc\/c01\/c02: no title and no date; titled "Legalbox 3, Folder 7"/.test(l)), out.lines.join('\n'));

    const res = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', untitled_components: true, filenames: ['u3.xml'] } }))
      .attach('files[]', Buffer.from(finding('U3', { untitled: true })), 'u3.xml');
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle();
    assert.equal((await t.http.get(res.body.uri).set(H)).body.status, 'completed', (await t.http.get(`${res.body.uri}/log`).set(H)).text);
  });

  it('reads an EAC-CPF record inside an export envelope', async () => {
    const report = await importers.eac_xml.run(t.services, repo, admin, write('enveloped.xml', ENVELOPED), quiet());
    assert.equal(report.counts.agent_person, 1);
    const agent = (await t.http.get(report.created[0]).set(H)).body;
    assert.deepEqual([agent.names[0].primary_name, agent.names[0].rest_of_name], ['Lovelace', 'Ada']);
    assert.equal(agent.agent_record_identifiers[0].record_identifier, 'envelope-001');
    await assert.rejects(importers.eac_xml.run(t.services, repo, admin, write('not-eac.xml', '<export><mods/></export>'), quiet()), /not-eac\.xml: no eac-cpf record/);
  });
});
