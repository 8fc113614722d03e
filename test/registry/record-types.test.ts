import assert from 'node:assert/strict';
import { recordTypes } from '../../scripts/record-types';

/** A record with an outline-like list (text or nested levels) and a list of links to terms (a URI or the term). */
const SCHEMAS = {
  shelf: {
    type: 'object',
    required: ['label'],
    properties: {
      label: { type: 'string' },
      items: { type: 'array', items: { type: ['string', 'object'], 'x-subrecords': ['shelf_level'] } },
      terms: { type: 'array', items: { type: ['string', 'object'], 'x-ref': ['term'], 'x-subrecords': ['term'] } },
      levels: { type: 'array', items: { type: 'object', 'x-subrecords': ['shelf_level'] } },
    },
  },
  shelf_level: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } },
  term: { type: 'object', properties: { term: { type: 'string' } } },
};

describe('generated record types (scripts/record-types.ts)', () => {
  const text = recordTypes(SCHEMAS, { jsonmodel_type: { type: 'string' } }, 'test');

  it('types a subrecord the schema also allows as text, or as a URI, as string or its interface; an object-only one as the interface', () => {
    assert.match(text, /label: string;/);
    assert.match(text, /items\?: Array<string \| ShelfLevel>;/);
    assert.match(text, /terms\?: Array<string \| Term>;/);
    assert.match(text, /levels\?: Array<ShelfLevel>;/);
  });

  it('writes AnyOf, the view of several types', () => {
    assert.match(text, /export type AnyOf<T> = /);
  });

  it('refuses two schemas that become one interface name', () => {
    assert.throws(() => recordTypes({ a_b: SCHEMAS.term, ab: SCHEMAS.term, AB: SCHEMAS.term }, {}, 'test'), /both become the interface/);
  });
});
