import { errors } from '../../errors';
import type { Obj } from '../../json';
import { isPlainObject } from '../../json';
import type { Services } from '../../records/context';
import { saveSetting, settingOf } from '../../store/repositories';
import { writeTransaction } from '../../records/context';

/**
 * Settings a repository keeps per record type for the staff forms (ArchivesSpace's
 * default_values and required_fields): one JSON document each, created or replaced by POST.
 */
export const SETTING_KINDS = {
  default_values: { field: 'defaults', shape: 'object' },
  required_fields: { field: 'subrecord_requirements', shape: 'array' },
} as const;
export type SettingKind = keyof typeof SETTING_KINDS;

function checkRecordType(s: Services, recordType: string): void {
  const type = s.registry.types[recordType];
  if (!type || type.kind !== 'record' || type.routes === false) {
    // The path names no record type: nothing there (404), as an unknown record id.
    throw errors.notFound('Record type');
  }
}

const uriOf = (repoId: number, kind: SettingKind, recordType: string) => `/repositories/${repoId}/${kind}/${recordType}`;

export async function getSetting(s: Services, kind: SettingKind, repoId: number, recordType: string): Promise<Obj> {
  checkRecordType(s, recordType);
  const row = await settingOf(s.db, { repoId, kind, recordType });
  if (!row) throw errors.notFound(kind === 'default_values' ? 'DefaultValues' : 'RequiredFields');
  return { ...JSON.parse(row.json), lock_version: Number(row.lock_version), jsonmodel_type: kind, record_type: recordType, uri: uriOf(repoId, kind, recordType) };
}

export async function putSetting(s: Services, kind: SettingKind, repoId: number, recordType: string, body: unknown): Promise<Obj> {
  const { field, shape } = SETTING_KINDS[kind];
  const value = isPlainObject(body) ? body[field] : undefined;
  if (value === undefined || (shape === 'object' ? !isPlainObject(value) : !Array.isArray(value))) {
    throw errors.mustBe(field, shape === 'object' ? 'an object' : 'a list');
  }
  checkRecordType(s, recordType);
  const json = JSON.stringify({ [field]: value });
  return writeTransaction(s, async (trx) => {
    const previous = await saveSetting(trx, { repoId, kind, recordType }, json);
    const lock = previous !== undefined ? previous + 1 : 0;
    return { status: previous !== undefined ? 'Updated' : 'Created', id: `${repoId}_${recordType}`, lock_version: lock, stale: null, uri: uriOf(repoId, kind, recordType), warnings: [] };
  });
}
