/**
 * The permission table (auth-and-permissions.md section 5): stored codes with their level,
 * derived codes with the stored code that implies them. Descriptions are the source's strings.
 */
export type Level = 'global' | 'repository';

export interface PermissionDef {
  code: string;
  level: Level;
  description: string;
  /** Hidden from GET /permissions. */
  system?: boolean;
  /** Derived: held by whoever holds this stored code in any repository. */
  impliedBy?: string;
}

const g = (code: string, description: string, system = false): PermissionDef => ({ code, level: 'global', description, system });
const r = (code: string, description: string): PermissionDef => ({ code, level: 'repository', description });
const d = (code: string, impliedBy: string, description: string): PermissionDef => ({ code, level: 'global', description, impliedBy });

export const PERMISSIONS: PermissionDef[] = [
  g('administer_system', 'The ability to act as a system administrator'),
  g('manage_users', 'The ability to manage user accounts while logged in'),
  g('become_user', 'The ability to masquerade as another user'),
  g('view_all_records', 'The ability to view any record in the system', true),
  g('create_repository', 'The ability to create new repositories'),
  g('delete_repository', 'The ability to delete a repository'),
  g('index_system', 'The ability to read any record for indexing', true),
  g('mediate_edits', 'Track concurrent updates to records', true),
  r('transfer_repository', 'The ability to transfer the contents of a repository'),
  r('manage_repository', 'The ability to manage a given repository'),
  r('update_accession_record', 'The ability to create and modify accessions records'),
  r('update_resource_record', 'The ability to create and modify resources records'),
  r('update_digital_object_record', 'The ability to create and modify digital objects records'),
  r('update_event_record', 'The ability to create and modify event records'),
  r('delete_event_record', 'The ability to delete event records'),
  r('suppress_archival_record', 'The ability to suppress the major archival record types: accessions/resources/digital objects/components/collection management/events'),
  r('transfer_archival_record', 'The ability to transfer records between different repositories'),
  r('delete_archival_record', 'The ability to delete the major archival record types: accessions/resources/digital objects/components/collection management/events'),
  r('view_suppressed', 'The ability to view suppressed records in a given repository'),
  r('view_repository', 'The ability to view a given repository'),
  r('update_classification_record', 'The ability to create and modify classification records'),
  r('delete_classification_record', 'The ability to delete classification records'),
  r('import_records', 'The ability to initiate an importer job'),
  r('cancel_importer_job', 'The ability to cancel a queued or running importer job'),
  r('create_job', 'The ability to create background jobs'),
  r('cancel_job', 'The ability to cancel background jobs'),
  r('manage_subject_record', 'The ability to create, modify and delete a subject record'),
  r('manage_agent_record', 'The ability to create, modify and delete an agent record'),
  r('view_agent_contact_record', 'The ability to view contact details for agent records'),
  r('manage_vocabulary_record', 'The ability to create, modify and delete a vocabulary record'),
  r('manage_enumeration_record', 'The ability to create, modify and delete a controlled vocabulary list record'),
  r('merge_agents_and_subjects', 'The ability to merge agent/subject records'),
  r('merge_archival_record', 'The ability to merge archival records records'),
  r('manage_rde_templates', 'The ability to create and delete RDE templates'),
  r('update_container_record', 'The ability to create and update container records'),
  r('manage_container_record', 'The ability to delete and bulk update container records'),
  r('manage_container_profile_record', 'The ability to create, modify and delete a container profile record'),
  r('manage_location_profile_record', 'The ability to create, modify and delete a location profile record'),
  r('update_assessment_record', 'The ability to create and modify assessment records'),
  r('delete_assessment_record', 'The ability to delete assessment records'),
  r('manage_assessment_attributes', 'The ability to manage assessment attribute definitions'),
  r('manage_custom_report_templates', 'The ability to manage custom report templates'),
  r('show_full_agents', 'The ability to add and edit extended agent attributes'),
  d('update_subject_record', 'manage_subject_record', 'The ability to create and modify subject records'),
  d('delete_subject_record', 'manage_subject_record', 'The ability to delete subject records'),
  d('update_agent_record', 'manage_agent_record', 'The ability to create and modify agent records'),
  d('delete_agent_record', 'manage_agent_record', 'The ability to delete agent records'),
  d('view_agent_contact_record_global', 'view_agent_contact_record', 'The ability to view contact details for agent records'),
  d('update_vocabulary_record', 'manage_vocabulary_record', 'The ability to create and modify vocabulary records'),
  d('delete_vocabulary_record', 'delete_archival_record', 'The ability to delete vocabulary records'),
  d('update_location_record', 'manage_repository', 'The ability to create and modify location records'),
  d('update_enumeration_record', 'manage_enumeration_record', 'The ability to manage controlled vocabulary lists'),
  d('update_container_profile_record', 'manage_container_profile_record', 'The ability to create/update/delete container profile records'),
  d('update_location_profile_record', 'manage_location_profile_record', 'The ability to create/update/delete location profile records'),
  d('merge_subject_record', 'merge_agents_and_subjects', 'The ability to merge subject records'),
  d('merge_agent_record', 'merge_agents_and_subjects', 'The ability to merge agent records'),
];

export const PERMISSION_BY_CODE = new Map(PERMISSIONS.map((p) => [p.code, p]));

export function isStored(code: string): boolean {
  const def = PERMISSION_BY_CODE.get(code);
  return !!def && !def.impliedBy;
}

/** Derived codes implied by a set of stored codes. */
export function derivedFrom(stored: Iterable<string>): Set<string> {
  const held = new Set(stored);
  return new Set(PERMISSIONS.filter((p) => p.impliedBy && held.has(p.impliedBy)).map((p) => p.code));
}

/** The administrators group gets every stored permission except show_full_agents (section 7). */
export const ADMINISTRATOR_GRANTS = PERMISSIONS.filter((p) => !p.impliedBy && p.code !== 'show_full_agents').map((p) => p.code);

/** The six groups every new repository gets (section 6); derived codes are dropped on save. */
export const DEFAULT_REPOSITORY_GROUPS: Array<{ code: string; description: (repoCode: string) => string; grants: string[] }> = [
  {
    code: 'repository-managers',
    description: (c) => `Managers of the ${c} repository`,
    grants: ['manage_repository', 'update_location_record', 'update_subject_record', 'update_agent_record', 'update_accession_record', 'update_resource_record', 'update_digital_object_record', 'update_event_record', 'delete_event_record', 'update_container_record', 'update_container_profile_record', 'update_location_profile_record', 'view_repository', 'delete_archival_record', 'suppress_archival_record', 'manage_subject_record', 'manage_agent_record', 'view_agent_contact_record', 'view_agent_contact_record_global', 'manage_vocabulary_record', 'manage_rde_templates', 'manage_container_record', 'manage_container_profile_record', 'manage_location_profile_record', 'import_records', 'cancel_job', 'update_assessment_record', 'delete_assessment_record', 'manage_assessment_attributes', 'update_enumeration_record', 'manage_enumeration_record', 'show_full_agents', 'manage_custom_report_templates'],
  },
  {
    code: 'repository-archivists',
    description: (c) => `Archivists of the ${c} repository`,
    grants: ['update_subject_record', 'update_agent_record', 'update_accession_record', 'update_resource_record', 'update_digital_object_record', 'update_event_record', 'update_container_record', 'update_container_profile_record', 'update_location_profile_record', 'view_repository', 'manage_subject_record', 'manage_agent_record', 'view_agent_contact_record', 'view_agent_contact_record_global', 'manage_vocabulary_record', 'manage_container_record', 'manage_container_profile_record', 'manage_location_profile_record', 'import_records', 'update_assessment_record', 'delete_assessment_record', 'create_job', 'cancel_job', 'update_enumeration_record', 'manage_enumeration_record', 'show_full_agents', 'manage_custom_report_templates'],
  },
  {
    code: 'repository-project-managers',
    description: (c) => `Project managers of the ${c} repository`,
    grants: ['view_repository', 'update_accession_record', 'update_resource_record', 'update_digital_object_record', 'update_event_record', 'delete_event_record', 'update_subject_record', 'update_agent_record', 'update_container_record', 'update_container_profile_record', 'update_location_profile_record', 'delete_archival_record', 'suppress_archival_record', 'manage_subject_record', 'manage_agent_record', 'view_agent_contact_record', 'view_agent_contact_record_global', 'manage_vocabulary_record', 'manage_container_record', 'manage_container_profile_record', 'manage_location_profile_record', 'import_records', 'merge_agents_and_subjects', 'update_assessment_record', 'delete_assessment_record', 'update_enumeration_record', 'manage_enumeration_record'],
  },
  {
    code: 'repository-advanced-data-entry',
    description: (c) => `Advanced Data Entry users of the ${c} repository`,
    grants: ['view_repository', 'update_accession_record', 'update_resource_record', 'update_digital_object_record', 'update_event_record', 'update_subject_record', 'update_agent_record', 'update_container_record', 'update_container_profile_record', 'update_location_profile_record', 'manage_subject_record', 'manage_agent_record', 'manage_vocabulary_record', 'manage_container_record', 'manage_container_profile_record', 'manage_location_profile_record', 'import_records', 'update_assessment_record', 'delete_assessment_record', 'update_enumeration_record', 'manage_enumeration_record'],
  },
  {
    code: 'repository-basic-data-entry',
    description: (c) => `Basic Data Entry users of the ${c} repository`,
    grants: ['view_repository', 'update_accession_record', 'update_resource_record', 'update_digital_object_record', 'create_job'],
  },
  {
    code: 'repository-viewers',
    description: (c) => `Viewers of the ${c} repository`,
    grants: ['view_repository'],
  },
];
