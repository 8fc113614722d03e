/** Terms of the subjects: by vocabulary, and by prefix for autocompletion (terms.ts). */
import { termsStartingWith, vocabularyTerms } from './terms';
import { Endpoint, json } from '../../records/endpoint';

export function termEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/vocabularies/:id/terms', permission: null, errors: ['NotFound'],
      params: [{ name: 'id', type: 'integer', required: true }],
      summary: "Get a list of Terms for a Vocabulary (the distinct terms of its subjects, without URIs: terms have no ids of their own here)",
      handle: async (call) => json(await vocabularyTerms(call.s, call.params.id)),
    },
    {
      method: 'get', path: '/terms', permission: null,
      params: [{ name: 'q', type: 'string', required: true }],
      summary: 'Get a list of Terms matching a prefix (at most 20, case-insensitive)',
      handle: async (call) => json(await termsStartingWith(call.s, call.params.q)),
    },
  ];
}
