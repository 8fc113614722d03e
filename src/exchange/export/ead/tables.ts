/**
 * The tables the finding-aid writers (EAD 2002, EAD3, PDF) share: which notes go where, the heads
 * of notes without a label, the elements of access points and index entries, language and script
 * names.
 */

export const DID_NOTES = new Set(['abstract', 'dimensions', 'physdesc', 'langmaterial', 'physloc', 'materialspec', 'physfacet']);
export const ARCHDESC_NOTES = new Set([
  'accruals', 'appraisal', 'arrangement', 'bioghist', 'accessrestrict', 'legalstatus', 'userestrict', 'custodhist', 'altformavail',
  'originalsloc', 'fileplan', 'odd', 'acqinfo', 'otherfindaid', 'phystech', 'prefercite', 'processinfo', 'relatedmaterial',
  'scopecontent', 'separatedmaterial',
]);
/** The heads ArchivesSpace gives notes without a label (its English note-type names). */
export const NOTE_HEADS: Record<string, string> = {
  accruals: 'Accruals', appraisal: 'Appraisal', arrangement: 'Arrangement', bioghist: 'Biographical / Historical',
  accessrestrict: 'Conditions Governing Access', legalstatus: 'Legal Status', userestrict: 'Conditions Governing Use',
  custodhist: 'Custodial History', altformavail: 'Existence and Location of Copies', originalsloc: 'Existence and Location of Originals',
  fileplan: 'File Plan', odd: 'General', acqinfo: 'Immediate Source of Acquisition', otherfindaid: 'Other Finding Aids',
  phystech: 'Physical Characteristics and Technical Requirements', prefercite: 'Preferred Citation', processinfo: 'Processing Information',
  relatedmaterial: 'Related Materials', scopecontent: 'Scope and Contents', separatedmaterial: 'Separated Materials',
  bibliography: 'Bibliography', index: 'Index',
};
export const SUBJECT_ELEMENTS: Record<string, string> = {
  function: 'function', genre_form: 'genreform', style_period: 'genreform', geographic: 'geogname', cultural_context: 'geogname',
  occupation: 'occupation', topical: 'subject', uniform_title: 'title',
};
export const AGENT_ELEMENTS: Record<string, string> = {
  agent_person: 'persname', agent_family: 'famname', agent_corporate_entity: 'corpname', agent_software: 'name',
};
export const INDEX_ITEM_ELEMENTS: Record<string, string> = {
  corporate_entity: 'corpname', genre_form: 'genreform', name: 'name', occupation: 'occupation', person: 'persname',
  subject: 'subject', family: 'famname', function: 'function', geographic_name: 'geogname', title: 'title',
};
/** Language names of the ISO 639-2 codes finding aids use most; others show their code. */
export const LANGUAGES: Record<string, string> = {
  eng: 'English', fre: 'French', ger: 'German', spa: 'Spanish', ita: 'Italian', por: 'Portuguese', dut: 'Dutch', lat: 'Latin',
  rus: 'Russian', pol: 'Polish', chi: 'Chinese', jpn: 'Japanese', heb: 'Hebrew', ara: 'Arabic', gre: 'Greek, Modern (1453-)',
  swe: 'Swedish', dan: 'Danish', nor: 'Norwegian', wel: 'Welsh', gle: 'Irish', yid: 'Yiddish', cze: 'Czech', hun: 'Hungarian',
  kor: 'Korean', mul: 'Multiple languages', und: 'Undetermined', zxx: 'No linguistic content',
};
export const SCRIPTS: Record<string, string> = { Latn: 'Latin', Cyrl: 'Cyrillic', Grek: 'Greek', Hebr: 'Hebrew', Arab: 'Arabic', Hani: 'Han (Hanzi, Kanji, Hanja)', Jpan: 'Japanese' };
