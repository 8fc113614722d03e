/** The record schemas in ArchivesSpace's JSONModel shape, for scripts that read property lists and value-list names. */
import { errors } from '../../errors';
import { jsonModelSchema, jsonModelSchemas } from '../jsonmodel-schemas';
import { Endpoint, json } from '../endpoint';

export function schemaEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/schemas', permission: null, summary: 'Get all ArchivesSpace schemas',
      handle: async (call) => json(jsonModelSchemas(call.s.registry)),
    },
    {
      method: 'get', path: '/schemas/:schema', permission: null, errors: ['NotFound'],
      params: [{ name: 'schema', type: 'string', required: true }], summary: 'Get an ArchivesSpace schema',
      handle: async (call) => {
        const schema = jsonModelSchema(call.s.registry, call.params.schema);
        if (!schema) throw errors.notFoundException();
        return json(schema);
      },
    },
  ];
}
