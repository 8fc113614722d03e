import assert from 'node:assert/strict';
import { rederiveChangedKeys } from '../../src/records/key-rule-changes';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/**
 * Agents are unique by what ArchivesSpace hashes (authorized names, dates of existence, contacts,
 * external documents, notes): a duplicate is refused with the one it duplicates.
 */
describe(`agent uniqueness (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(() => t?.close());

  const person = (extra: object = {}, names: object[] = [{ primary_name: 'Twin', rest_of_name: 'Ada', name_order: 'inverted', source: 'local', sort_name: 'Twin, Ada' }]) =>
    t.http.post('/agents/people').set(H).send({ names, ...extra });

  it('refuses an agent that duplicates another, naming it; what the hash leaves out does not make it new', async () => {
    const first = await person();
    assert.equal(first.status, 200, first.text);
    const again = await person();
    assert.equal(again.status, 400, again.text);
    assert.deepEqual(again.body.error, { names: ['Agent must be unique'], conflicting_record: [first.body.uri] });
    // Another name that is not authorized, or another sort name, is still the same agent.
    const alias = await person({}, [
      { primary_name: 'Twin', rest_of_name: 'Ada', name_order: 'inverted', source: 'local', authorized: true, sort_name: 'Twin, A.', sort_name_auto_generate: false },
      { primary_name: 'Twinning', name_order: 'direct', source: 'local', sort_name: 'Twinning' },
    ]);
    assert.equal(alias.status, 400, alias.text);
    // Dates of existence, or another authorized name, make another agent.
    const dated = await person({ dates_of_existence: [{ date_type_structured: 'single', date_label: 'existence', structured_date_single: { date_role: 'begin', date_expression: '1900' } }] });
    assert.equal(dated.status, 200, dated.text);
    const other = await person({}, [{ primary_name: 'Twin', rest_of_name: 'Bea', name_order: 'inverted', source: 'local', sort_name: 'Twin, Bea' }]);
    assert.equal(other.status, 200, other.text);
    // Saving one into the other's likeness is refused too; the same types only: a family of that name is not a person.
    const stored = (await t.http.get(other.body.uri).set(H)).body;
    const clash = await t.http.post(other.body.uri).set(H).send({ ...stored, names: [{ ...stored.names[0], rest_of_name: 'Ada' }] });
    assert.equal(clash.status, 400, clash.text);
    assert.equal(clash.body.error.conflicting_record[0], first.body.uri);
    const family = await t.http.post('/agents/families').set(H).send({ names: [{ family_name: 'Twin', source: 'local', sort_name: 'Twin' }] });
    assert.equal(family.status, 200, family.text);
  });

  it('derives the keys of records stored before their rules changed, at start', async () => {
    const knex = t.services.db.knex;
    const names = (given: string) => [{ primary_name: 'Earlier', rest_of_name: given, name_order: 'inverted', source: 'local', sort_name: `Earlier, ${given}` }];
    const a = (await person({}, names('Ann'))).body.uri as string;
    const b = (await person({}, names('Ben'))).body.uri as string;
    // As a store written before agents had a unique rule: no keys, and b made a copy of a behind the API's back.
    const rids = (await knex('records').whereIn('uri', [a, b]).select('rid', 'uri', 'json')) as Array<{ rid: number; uri: string; json: string }>;
    await knex('unique_keys').whereIn('rid', rids.map((r) => r.rid)).delete();
    const ann = JSON.parse(rids.find((r) => r.uri === a)!.json);
    const copy = { ...JSON.parse(rids.find((r) => r.uri === b)!.json), names: ann.names };
    await knex('records').where({ uri: b }).update({ json: JSON.stringify(copy) });
    await knex('key_rule_versions').where({ type: 'agent_person' }).update({ digest: 'rules of an earlier version' });
    const unchecked = await person({}, names('Ann'));
    assert.equal(unchecked.status, 200, 'without keys the duplicate is not seen');
    await rederiveChangedKeys(t.services);
    const refused = await person({}, names('Ann'));
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.body.error.conflicting_record, [a], 'the first stored keeps the key; the copies are logged');
    assert.notEqual((await knex('key_rule_versions').where({ type: 'agent_person' }).first('digest')).digest, 'rules of an earlier version');
    // Both are system events an administrator can read, beside the migrations this store started with.
    const events = (await t.http.get('/system/events').set(H)).body;
    assert.equal(events[0].title, 'MIGRATIONS_APPLIED');
    assert.match(events[0].message, /001_generic_record_store/);
    const derived = events.find((e: any) => e.title === 'KEYS_DERIVED_AGAIN');
    assert.match(derived.message, /^agent_person: \d+ records; breaking the new rules: /);
    assert.match(derived.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal((await t.http.get('/system/events')).status, 403);
    // Nothing to do the second time.
    const before = await knex('unique_keys').count({ n: '*' }).first();
    await rederiveChangedKeys(t.services);
    assert.deepEqual(await knex('unique_keys').count({ n: '*' }).first(), before);
  });

  it('links the stored agent when a batch import brings it again', async () => {
    const repo = await createRepository(t, 'AGU');
    const existing = await t.http.post('/agents/corporate_entities').set(H).send({ names: [{ primary_name: 'Mill Society', source: 'local', sort_name: 'Mill Society' }] });
    assert.equal(existing.status, 200, existing.text);
    const res = await t.http.post(`/repositories/${repo}/batch_imports`).set(H).send([
      { jsonmodel_type: 'agent_corporate_entity', uri: 'import_agent', names: [{ primary_name: 'Mill Society', source: 'local', sort_name: 'Mill Society' }] },
      { jsonmodel_type: 'accession', uri: 'import_acc', id_0: 'AGU-1', title: 'Minutes', accession_date: '2024-01-01', linked_agents: [{ role: 'creator', ref: 'import_agent' }] },
    ]);
    const entries = JSON.parse(res.text);
    const saved = entries[entries.length - 1].saved;
    assert.equal(saved.import_agent[0], existing.body.uri, JSON.stringify(entries[entries.length - 1]));
    assert.equal((await t.http.get(saved.import_acc[0]).set(H)).body.linked_agents[0].ref, existing.body.uri);
  });
});
