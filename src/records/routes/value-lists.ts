import {
  createEnumeration, enumerationsCsv, getEnumeration, getEnumerationByName, getEnumerationValue, listEnumerations,
  migrateValue, moveValue, updateEnumerationValue, setValueSuppressed, updateEnumeration,
} from '../value-lists';
import { errors } from '../../errors';
import { isPlainObject } from '../../json';
import { Endpoint, json } from '../endpoint';

const enumId = { name: 'enum_id', type: 'integer', required: true } as const;
const valueId = { name: 'enum_val_id', type: 'integer', required: true } as const;
const WRITE = 'update_enumeration_record';

/** The editable value lists (endpoints.md section 14). */
export function enumerationEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/config/enumerations', permission: null, summary: 'Every value list',
      handle: async (c) => json(await listEnumerations(c.s)),
    },
    {
      method: 'get', path: '/config/enumerations/csv', permission: null, produces: 'text/csv', summary: 'Every value list as CSV',
      handle: async (c) => ({ text: await enumerationsCsv(c.s), contentType: 'text/csv' }),
    },
    {
      method: 'post', path: '/config/enumerations', permission: WRITE, body: 'enumeration', summary: 'Create a value list',
      handle: async (c) => json(await createEnumeration(c.s, c.body!.record)),
    },
    {
      method: 'post', path: '/config/enumerations/migration', permission: WRITE, rawJsonBody: true,
      summary: 'Move every record from one value to another, then delete the first',
      handle: async (c) => {
        const b = c.rawBody;
        if (!isPlainObject(b) || typeof b.enum_uri !== 'string' || typeof b.from !== 'string' || typeof b.to !== 'string') {
          throw errors.invalidParam('enumeration_migration', 'needs enum_uri, from and to as strings');
        }
        return json(await migrateValue(c.s, b.enum_uri, b.from, b.to));
      },
    },
    {
      method: 'get', path: '/config/enumerations/names/:enum_name', permission: null, params: [{ name: 'enum_name', type: 'string', required: true }], errors: ['NotFound'],
      summary: 'A value list by name',
      handle: async (c) => json(await getEnumerationByName(c.s, c.params.enum_name)),
    },
    {
      method: 'get', path: '/config/enumerations/:enum_id', permission: null, params: [enumId], summary: 'A value list', errors: ['NotFound'],
      handle: async (c) => json(await getEnumeration(c.s, c.params.enum_id)),
    },
    {
      method: 'post', path: '/config/enumerations/:enum_id', permission: WRITE, params: [enumId], body: 'enumeration', errors: ['NotFound', 'Conflict'],
      summary: 'Update a value list (values missing are removed, new ones appended)',
      handle: async (c) => json(await updateEnumeration(c.s, c.params.enum_id, c.body!.record)),
    },
    {
      method: 'get', path: '/config/enumeration_values/:enum_val_id', permission: null, params: [valueId], summary: 'One value of a list', errors: ['NotFound'],
      handle: async (c) => json(await getEnumerationValue(c.s, c.params.enum_val_id)),
    },
    {
      method: 'post', path: '/config/enumeration_values/:enum_val_id', permission: WRITE, params: [valueId], body: 'enumeration_value', errors: ['NotFound'],
      summary: "Update a value's position or suppressed flag",
      handle: async (c) => json(await updateEnumerationValue(c.s, c.params.enum_val_id, c.body!.record)),
    },
    {
      method: 'post', path: '/config/enumeration_values/:enum_val_id/position', permission: WRITE, errors: ['NotFound', 'Conflict'],
      params: [valueId, { name: 'position', type: 'integer', required: true }], summary: 'Move a value to a position',
      handle: async (c) => json(await moveValue(c.s, c.params.enum_val_id, c.params.position)),
    },
    {
      method: 'post', path: '/config/enumeration_values/:enum_val_id/suppressed', permission: WRITE, errors: ['NotFound', 'Conflict'],
      params: [valueId, { name: 'suppressed', type: 'boolean', required: true }], summary: 'Hide or show a value',
      handle: async (c) => json(await setValueSuppressed(c.s, c.params.enum_val_id, c.params.suppressed)),
    },
  ];
}
