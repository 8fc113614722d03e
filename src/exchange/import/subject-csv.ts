/**
 * Subject CSV import (`subject_csv`): ArchivesSpace's subject template (its SubjectConverter), one
 * subject per row, in vocabulary /vocabularies/1:
 *   subject_authority_id, subject_source, subject_scope_note → the subject's fields
 *   term_1..term_5 with term_type_1..term_type_5 → its terms, in that order
 *   external_document_title, _location, _publish → an external document
 *   md_rights_dec_license, _descriptive_note, _file_uri, _xlink_actuate, _xlink_show, _xlink_role,
 *     _xlink_title, _xlink_arcrole, _last_verified_date → a metadata rights declaration
 * A subject the store already holds (same source and terms) is linked to, not created again.
 */
import type { Obj } from '../../json';
import { templateCsvImporter } from './csv-template';

const TERMS = [1, 2, 3, 4, 5];

export const subjectCsvImporter = templateCsvImporter({
  type: 'subject_csv',
  label: 'Import Subject records from a CSV file',
  recordType: 'subject',
  columns: {
    subject_authority_id: ['subject', 'authority_id'],
    subject_source: ['subject', 'source'],
    subject_scope_note: ['subject', 'scope_note'],
    ...Object.fromEntries(TERMS.flatMap((n) => [[`term_${n}`, [`term_${n}`, 'term']], [`term_type_${n}`, [`term_${n}`, 'term_type']]])),
    external_document_title: ['external_document', 'title'],
    external_document_location: ['external_document', 'location'],
    external_document_publish: ['external_document', 'publish'],
    md_rights_dec_license: ['md_rights', 'license'],
    md_rights_dec_descriptive_note: ['md_rights', 'descriptive_note'],
    md_rights_dec_file_uri: ['md_rights', 'file_uri'],
    md_rights_dec_xlink_actuate: ['md_rights', 'file_version_xlink_actuate_attribute'],
    md_rights_dec_xlink_show: ['md_rights', 'file_version_xlink_show_attribute'],
    // ArchivesSpace's converter names these file_version_xlink_*_attribute, which its schema does not
    // have (the values were lost); they go to the schema's xlink_*_attribute here.
    md_rights_dec_xlink_role: ['md_rights', 'xlink_role_attribute'],
    md_rights_dec_xlink_title: ['md_rights', 'xlink_title_attribute'],
    md_rights_dec_xlink_arcrole: ['md_rights', 'xlink_arcrole_attribute'],
    md_rights_dec_last_verified_date: ['md_rights', 'last_verified_date'],
  },
  partTypes: {
    subject: 'subject', external_document: 'external_document', md_rights: 'metadata_rights_declaration',
    ...Object.fromEntries(TERMS.map((n) => [`term_${n}`, 'term'])),
  },
  booleans: ['publish'],
  build(parts) {
    const body: Obj = { ...parts.subject, vocabulary: '/vocabularies/1' };
    body.terms = TERMS.map((n) => parts[`term_${n}`]).filter((t) => t).map((t) => ({ ...t, vocabulary: '/vocabularies/1' }));
    if (parts.external_document) body.external_documents = [parts.external_document];
    if (parts.md_rights) body.metadata_rights_declarations = [parts.md_rights];
    return body;
  },
});
