/** Default values and required fields of the staff forms, per repository and record type. */
import { getSetting, putSetting, SETTING_KINDS, SettingKind } from './settings';
import { attributeDefinitions, saveAttributeDefinitions } from './assessment-attributes';
import { Endpoint, json } from '../../records/endpoint';

const recordType = { name: 'record_type', type: 'string', required: true } as const;

export function repositorySettingEndpoints(): Endpoint[] {
  const assessments: Endpoint[] = [
    {
      method: 'get', path: '/repositories/:repo_id/assessment_attribute_definitions', permission: 'view_repository',
      summary: 'The assessment attribute definitions (ratings, formats, conservation issues): the installation\'s and this repository\'s',
      handle: async (call) => json(await attributeDefinitions(call.s, call.repoId!)),
    },
    {
      method: 'post', path: '/repositories/:repo_id/assessment_attribute_definitions', permission: 'manage_assessment_attributes', rawJsonBody: true,
      summary: "Replace this repository's own assessment attribute definitions",
      handle: async (call) => json(await saveAttributeDefinitions(call.s, call.repoId!, call.rawBody)),
    },
  ];
  return [...assessments, ...(Object.keys(SETTING_KINDS) as SettingKind[]).flatMap((kind): Endpoint[] => [
    {
      method: 'post', path: `/repositories/:repo_id/${kind}/:record_type`, permission: 'manage_repository', params: [recordType], rawJsonBody: true, errors: ['NotFound'],
      summary: `Save the ${kind.replace('_', ' ')} of a record type in this repository (created or replaced)`,
      handle: async (call) => json(await putSetting(call.s, kind, call.repoId!, call.params.record_type, call.rawBody)),
    },
    {
      method: 'get', path: `/repositories/:repo_id/${kind}/:record_type`, permission: 'view_repository', params: [recordType], errors: ['NotFound'],
      summary: `Get the ${kind.replace('_', ' ')} of a record type in this repository`,
      handle: async (call) => json(await getSetting(call.s, kind, call.repoId!, call.params.record_type)),
    },
  ])];
}
