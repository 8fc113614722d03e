import assert from 'node:assert/strict';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/**
 * An agent's contacts are shown to, and set by, holders of view_agent_contact_record_global only
 * (endpoints.md section 13): others read them as [] (also through resolve[]), cannot create an
 * agent with contacts, and leave them as stored when they update one. Search holds them for no one.
 */
describe(`agent contacts (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;
  const as: Record<string, Record<string, string>> = {};
  const CONTACT = { name: 'Home', email: 'hidden-contact@example.org', telephones: [{ number: '555-0100' }] };

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t, 'CONTACTS');
    for (const [user, code] of [['contacts-viewer', 'repository-viewers'], ['contacts-pm', 'repository-advanced-data-entry'], ['contacts-archivist', 'repository-archivists']]) {
      const group = (await t.http.get(`/repositories/${repo}/groups`).query({ group_code: code }).set(H)).body[0].uri;
      await t.http.post('/users').query({ password: 'pw', 'groups[]': [group] }).set(H).send({ username: user, name: user }).expect(200);
      as[user] = { 'X-ArchivesSpace-Session': (await t.http.post(`/users/${user}/login`).query({ password: 'pw' })).body.session };
    }
  });
  after(() => t?.close());

  const contactsOf = async (uri: string, headers: Record<string, string> = {}) => (await t.http.get(uri).set(headers)).body.agent_contacts;

  it('shows contacts to their holders only: in a record, a listing and resolve[]', async () => {
    const agent = await t.http.post('/agents/people').set(H).send({ names: [{ primary_name: 'Private', sort_name: 'Private', name_order: 'direct' }], agent_contacts: [CONTACT] });
    assert.equal(agent.status, 200, agent.text);
    const uri = agent.body.uri;
    const acc = (await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'C-1', title: 'Linked', accession_date: '2024-01-01', linked_agents: [{ role: 'creator', ref: uri }] })).body.uri;
    const resolved = async (headers: Record<string, string>) =>
      (await t.http.get(acc).query({ 'resolve[]': 'linked_agents' }).set(headers)).body.linked_agents[0]._resolved.agent_contacts;

    assert.equal((await contactsOf(uri, H))[0].email, CONTACT.email);
    assert.equal((await resolved(H))[0].email, CONTACT.email, 'admin first: the kept linked record is whole');
    assert.deepEqual(await contactsOf(uri), [], 'anonymous');
    assert.deepEqual(await contactsOf(uri, as['contacts-viewer']), []);
    assert.deepEqual(await resolved(as['contacts-viewer']), []);
    assert.equal((await resolved(H))[0].email, CONTACT.email, 'and admin again: the kept records are not shared');
    const listed = (await t.http.get('/agents/people').query({ page: 1 })).body.results.find((a: any) => a.uri === uri);
    assert.deepEqual(listed.agent_contacts, []);
    const byIds = (await t.http.get('/agents/people').query({ id_set: uri.split('/').pop() }).set(as['contacts-viewer'])).body;
    assert.deepEqual(byIds[0].agent_contacts, []);
    assert.equal((await contactsOf(uri, as['contacts-archivist']))[0].email, CONTACT.email, 'the archivists group holds the permission');
  });

  it('lets only holders set contacts: a create is refused, an update keeps them', async () => {
    const pm = as['contacts-pm']; // advanced data entry: writes agents, does not see contacts
    const refused = await t.http.post('/agents/people').set(pm).send({ names: [{ primary_name: 'PM made', sort_name: 'PM made', name_order: 'direct' }], agent_contacts: [CONTACT] });
    assert.equal(refused.status, 403, refused.text);
    const made = await t.http.post('/agents/people').set(pm).send({ names: [{ primary_name: 'PM made', sort_name: 'PM made', name_order: 'direct' }], agent_contacts: [] });
    assert.equal(made.status, 200, made.text);
    const owned = (await t.http.post('/agents/people').set(H).send({ names: [{ primary_name: 'Kept', sort_name: 'Kept', name_order: 'direct' }], agent_contacts: [CONTACT] })).body.uri;
    const seen = (await t.http.get(owned).set(pm)).body;
    assert.deepEqual(seen.agent_contacts, []);
    const saved = await t.http.post(owned).set(pm).send({ ...seen, names: [{ ...seen.names[0], primary_name: 'Kept renamed' }] });
    assert.equal(saved.status, 200, saved.text);
    const after = (await t.http.get(owned).set(H)).body;
    assert.equal(after.names[0].primary_name, 'Kept renamed');
    assert.equal(after.agent_contacts[0].email, CONTACT.email, 'the update kept the stored contacts');
  });

  it('keeps contacts out of search documents', async () => {
    await t.services.search!.indexer.drain();
    const hits = (await t.http.get('/search').query({ page: 1, q: 'hidden-contact@example.org' }).set(H)).body;
    assert.equal(hits.total_hits ?? hits.total ?? hits.results.length, 0, JSON.stringify(hits).slice(0, 300));
    const agents = (await t.http.get('/search').query({ page: 1, q: 'Private', 'type[]': 'agent_person' }).set(H)).body.results;
    assert.ok(agents.length, 'the agent itself is found');
    for (const a of agents) assert.ok(!String(a.json).includes('hidden-contact'), a.json);
  });
});
