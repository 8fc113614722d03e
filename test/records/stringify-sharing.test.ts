import assert from 'node:assert/strict';
import { stringifySharing } from '../../src/json';

describe('stringifySharing: resolved records spliced in as text', () => {
  const agent = { uri: '/agents/people/1', title: 'Ruth "R." Smith', names: [{ sort_name: 'Smith, Ruth\n\u0000' }] };
  const subject = { uri: '/subjects/1', title: 'Rivers \u2014 \u{1F30A}', terms: [] };

  function served() {
    const records: Array<Record<string, any>> = [
      { title: 'One', linked_agents: [{ ref: agent.uri, role: 'creator' }], subjects: [{ ref: subject.uri }, { ref: subject.uri }] },
      { title: 'Two \u0000 text a mark could be made of: "\\u0000', subjects: [{ ref: subject.uri }] },
    ];
    const holders: Array<Record<string, unknown>> = [records[0].linked_agents[0], ...records[0].subjects, records[1].subjects[0]];
    holders.forEach((h) => { h._resolved = h.ref === agent.uri ? agent : subject; });
    return { records, holders };
  }

  it('writes what JSON.stringify writes, each shared record under every link to it', () => {
    const { records, holders } = served();
    const expected = JSON.stringify(records);
    assert.equal(stringifySharing(records, holders, '_resolved'), expected);
    // Again, with the shared records' text kept from the first time, and for one record of them.
    assert.equal(stringifySharing(records, holders, '_resolved'), expected);
    assert.equal(stringifySharing(records[1], [holders[3]], '_resolved'), JSON.stringify(records[1]));
  });

  it('leaves the holders as they were, and needs none', () => {
    const { records, holders } = served();
    stringifySharing(records, holders, '_resolved');
    assert.equal(records[0].subjects[1]._resolved, subject);
    assert.equal(records[0].linked_agents[0]._resolved, agent);
    assert.equal(stringifySharing({ a: [1, 'x'] }, [], '_resolved'), '{"a":[1,"x"]}');
  });
});
