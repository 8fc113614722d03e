/**
 * EAD 2002 finding aid of a resource (`GET /repositories/:repo_id/resource_descriptions/:id.xml`,
 * OAI `oai_ead`), valid against ead.xsd, written as the tree is walked: components are read a
 * page of siblings at a time in tree order, so a resource of 100,000 components streams in
 * bounded memory. Element choices follow ArchivesSpace's EAD serializer (exporters/serializers/ead.rb).
 *
 * record field → element:
 *   ead_id → eadheader/eadid (@url ead_location, @countrycode and @mainagencycode from the repository)
 *   finding_aid_filing_title → titleproper@type=filing; finding_aid_title (else title) + identifier → titleproper (+ num)
 *   finding_aid_subtitle, _author, _sponsor → subtitle, author, sponsor; _edition_statement → editionstmt/p
 *   repository name, finding_aid_date, repository address (its agent's first contact) → publicationstmt publisher, p/date, address/addressline
 *   finding_aid_series_statement → seriesstmt/p; finding_aid_note → notestmt/note/p
 *   finding_aid_language / _script (or _language_note) → profiledesc/langusage; finding_aid_description_rules → descrules
 *   finding_aid_status → eadheader@findaidstatus; revision_statements → revisiondesc/change (date, item)
 *   level / other_level → archdesc@level, @otherlevel (c@level on components, c@id from ref_id)
 *   repository → did/repository/corpname; title → unittitle; id_0..3 (component_id) → unitid
 *   linked agents (creator, source) → origination@label/persname|corpname|famname|name (@role relator, @source, @rules, @authfilenumber)
 *   extents → physdesc@altrender=portion / extent (number + type; container_summary as carrier), physfacet, dimensions
 *   dates → unitdate (@normal begin/end, @type inclusive|bulk, @certainty, @era, @calendar, @datechar label)
 *   notes: abstract, physloc, materialspec, physdesc, dimensions, physfacet, langmaterial → in did;
 *     the others → their own element with head (label, else the note type's name) and paragraphs, subnotes
 *     as chronlist / list@type=ordered / list@type=deflist; legalstatus inside accessrestrict;
 *     note_bibliography → bibliography/bibref; note_index → index/indexentry
 *   lang_materials → langmaterial/language@langcode@scriptcode
 *   instances (top container, child, grandchild) → container@type@label (+ [barcode]) @altrender (profile), @parent
 *   instances with digital objects (include_daos) → dao (one file version) or daogrp/daoloc (several)
 *   subjects → controlaccess/subject|geogname|genreform|occupation|function|title (@source, @authfilenumber)
 *   linked agents (not creators) → controlaccess/persname|... (@role relator, or fmo for a source)
 *   archival objects → dsc/c (or c01..c12 with numbered_cs), nested in tree order (walker.ts)
 */
import type { ContainerProfile, FileVersion, Instance, LanguageAndScript, TopContainer } from '../../../../generated/types';
import type { Obj } from '../../../json';
import type { Services } from '../../../records/context';
import type { Attributes, XmlWriter } from '../../xml';
import { dateText } from '../common';
import { paragraphs, phrase } from '../mixed-content';
import {
  agencyOf, type Described, type EadOptions, findingAidStatus, notesOf, type Repository, type Resource, type SubLevel, humanise, type NameAttributes, noteContent, noteContents, prefixId, present,
  shownDigitalObjects, type Terms,
} from './parts';
import { DID_NOTES, LANGUAGES, SCRIPTS } from './tables';
import { EadFamilyWriter, writeFindingAid } from './writer';

export const EAD_NS = 'urn:isbn:1-931666-22-9';

/** Writes the EAD 2002 document of a resource loaded with EAD_RESOLVE (and `repository` resolved). */
export function writeEad(s: Services, w: XmlWriter, resource: Obj, repository: Obj, o: EadOptions): Promise<void> {
  return writeFindingAid(s, w, resource as Resource, repository as Repository, o, new Ead2002Writer(w, o));
}

class Ead2002Writer extends EadFamilyWriter {
  protected readonly resourceDaosInDid = false;
  protected readonly chronDate = 'date';
  protected readonly eventGroup = 'eventgrp';
  protected readonly filingTitle = { type: 'filing' };
  protected readonly noteStatement = 'note';

  constructor(w: XmlWriter, o: EadOptions) {
    super(w, o, phrase, paragraphs);
  }

  begin(r: Resource, repo: Repository, address: string[]): void {
    const w = this.w;
    w.open('ead', {
      xmlns: EAD_NS, 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', 'xmlns:xlink': 'http://www.w3.org/1999/xlink',
      'xsi:schemaLocation': `${EAD_NS} https://www.loc.gov/ead/ead.xsd`, audience: r.publish === false ? 'internal' : undefined,
    });
    w.open('eadheader', {
      findaidstatus: findingAidStatus(r, this.o),
      repositoryencoding: 'iso15511', countryencoding: 'iso3166-1', dateencoding: 'iso8601', langencoding: 'iso639-2b',
    });
    const agency = agencyOf(repo);
    w.open('eadid', { countrycode: agency.country, mainagencycode: agency.code, url: r.ead_location }).text(String(r.ead_id ?? '')).close();
    this.filedesc(r, repo, address);
    w.open('profiledesc');
    w.open('creation').text('This finding aid was produced using Archive Records Backend on ').leaf('date', new Date().toISOString().slice(0, 10)).text('.').close();
    if (present(r.finding_aid_language_note)) w.open('langusage').raw(phrase(String(r.finding_aid_language_note))).close();
    else if (present(r.finding_aid_language)) {
      const lang = String(r.finding_aid_language);
      const script = present(r.finding_aid_script) ? String(r.finding_aid_script) : undefined;
      w.open('langusage').text('Finding aid written in ')
        .leaf('language', `${LANGUAGES[lang] ?? lang}${script ? `, ${SCRIPTS[script] ?? script} script` : ''}`, { langcode: lang, scriptcode: script })
        .text('.').close();
    }
    if (present(r.finding_aid_description_rules)) w.leaf('descrules', humanise(String(r.finding_aid_description_rules)));
    w.close('profiledesc');
    const revisions = (r.revision_statements ?? []).filter((rs) => this.o.includeUnpublished || rs.publish === true || rs.publish === undefined);
    if (revisions.length) {
      w.open('revisiondesc');
      for (const rs of revisions) {
        w.open('change', { audience: rs.publish === false ? 'internal' : undefined });
        w.open('date').raw(phrase(String(rs.date ?? ''))).close();
        w.open('item').raw(phrase(String(rs.description ?? ''))).close();
        w.close('change');
      }
      w.close('revisiondesc');
    }
    w.close('eadheader');
  }

  protected titleNumber(identifier: string): void {
    this.w.text(' ').leaf('num', identifier);
  }

  protected publicationDate(r: Resource, repo: Repository): void {
    const w = this.w;
    if (present(repo.image_url)) {
      w.open('p', { id: 'logostmt' }).empty('extref', { 'xlink:href': repo.image_url, 'xlink:actuate': 'onLoad', 'xlink:show': 'embed', 'xlink:type': 'simple' }).close();
    }
    if (present(r.finding_aid_date)) w.open('p').open('date').raw(phrase(String(r.finding_aid_date))).close().close();
  }

  protected urlPointer(url: string): void {
    this.w.empty('extptr', { 'xlink:href': url, 'xlink:title': url, 'xlink:type': 'simple', 'xlink:show': 'new' });
  }

  /** A name or term as one phrase, its parts joined by " -- ". */
  protected name(element: string, a: NameAttributes, terms: Terms): void {
    this.w.open(element, { role: a.relator, source: a.source, rules: a.rules, authfilenumber: a.authority }).raw(phrase(terms.map((t) => t[0]).join(' -- '))).close();
  }

  /** What resources and components share inside did: identifiers, extents, dates, did notes, languages. */
  protected didCommon(r: Described): void {
    const w = this.w;
    if (this.o.includeUnpublished) {
      for (const ex of r.external_ids ?? []) w.leaf('unitid', ex.external_id, { audience: 'internal', type: ex.source, identifier: ex.external_id });
    }
    if (r.ark_name?.current) {
      w.open('unitid', { type: 'ark' }).open('extref', { 'xlink:href': r.ark_name.current, 'xlink:actuate': 'onLoad', 'xlink:show': 'new' }).text('Archival Resource Key').close().close();
    }
    if (this.o.includeUris) w.leaf('unitid', r.uri, { type: 'aspace_uri' });
    for (const ex of r.extents ?? []) {
      if (!this.shown(ex)) continue;
      w.open('physdesc', { altrender: ex.portion, audience: this.audience(ex) });
      if (present(ex.number) && present(ex.extent_type)) w.open('extent', { altrender: 'materialtype spaceoccupied' }).raw(phrase(`${ex.number} ${humanise(String(ex.extent_type))}`)).close();
      if (present(ex.container_summary)) w.open('extent', { altrender: 'carrier' }).raw(phrase(String(ex.container_summary))).close();
      if (present(ex.physical_details)) w.open('physfacet').raw(phrase(String(ex.physical_details))).close();
      if (present(ex.dimensions)) w.open('dimensions').raw(phrase(String(ex.dimensions))).close();
      w.close('physdesc');
    }
    for (const d of r.dates ?? []) {
      if (!this.shown(d)) continue;
      const normal = present(d.begin) ? `${d.begin}/${d.date_type === 'single' || !present(d.end) ? d.begin : d.end}` : undefined;
      w.open('unitdate', {
        type: d.date_type === 'inclusive' ? 'inclusive' : d.date_type === 'bulk' ? 'bulk' : undefined,
        certainty: d.certainty, normal: normal && /^\d{4}(-\d{2}(-\d{2})?)?\/\d{4}(-\d{2}(-\d{2})?)?$/.test(normal) ? normal : undefined,
        era: d.era, calendar: d.calendar, datechar: d.label, audience: this.audience(d),
      }).raw(phrase(dateText(d, '-'))).close();
    }
    for (const note of notesOf(r)) {
      if (!DID_NOTES.has(note.type) || !this.shown(note)) continue;
      const attrs = { id: prefixId(note.persistent_id), label: note.label };
      const text = noteContent(note, this.o.includeUnpublished);
      if (note.type === 'dimensions' || note.type === 'physfacet') {
        w.open('physdesc', { audience: this.audience(note) }).open(note.type, attrs).raw(phrase(text)).close().close();
      } else if (note.type === 'langmaterial') {
        w.open('langmaterial', { id: attrs.id, label: attrs.label, audience: this.audience(note) }).raw(phrase(text)).close();
      } else {
        w.open(note.type, { ...attrs, audience: this.audience(note) }).raw(phrase(text)).close();
      }
    }
    const materials = r.lang_materials ?? [];
    const languageNotes = materials.flatMap((m) => m.notes ?? []).filter((n) => this.shown(n));
    for (const note of languageNotes) {
      w.open('langmaterial', { id: prefixId(note.persistent_id), audience: this.audience(note) }).raw(phrase(noteContent(note, this.o.includeUnpublished))).close();
    }
    const languages = materials.map((m) => m.language_and_script).filter((l): l is LanguageAndScript => !!l?.language);
    if (!languageNotes.length && languages.length) {
      w.open('langmaterial');
      for (const l of languages) w.leaf('language', LANGUAGES[l.language] ?? l.language, { langcode: l.language, scriptcode: l.script });
      w.close('langmaterial');
    }
  }

  protected topContainer(inst: Instance, top: TopContainer, profile: ContainerProfile | undefined): Attributes {
    return {
      type: present(top.type) ? String(top.type).replace(/\s+/g, '_') : undefined,
      label: `${humanise(String(inst.instance_type ?? 'mixed_materials'))}${present(top.barcode) ? ` [${top.barcode}]` : ''}`,
      altrender: profile ? profile.url ?? profile.name : undefined,
    };
  }

  protected subContainer(level: SubLevel): Attributes {
    return { type: level.type.replace(/\s+/g, '_') };
  }

  /** Digital objects of the instances: dao (no or one file version shown) or daogrp with daoloc. */
  protected daos(r: Described): void {
    const w = this.w;
    for (const { inst, dobj, versions, description, internal } of shownDigitalObjects(r, this.o)) {
      const desc = () => { if (description) w.open('daodesc').raw(paragraphs(description)).close(); };
      if (versions.length <= 1) {
        const fv: FileVersion | undefined = versions[0];
        w.open('dao', {
          'xlink:type': 'simple', 'xlink:href': fv ? fv.file_uri : dobj.digital_object_id, 'xlink:title': dobj.title,
          'xlink:actuate': fv?.xlink_actuate_attribute ?? 'onRequest', 'xlink:show': fv?.xlink_show_attribute ?? 'new',
          'xlink:role': fv?.use_statement ? (inst.is_representative ? `${fv.use_statement} representative` : fv.use_statement) : undefined,
          audience: internal(fv),
        });
        desc();
        w.close('dao');
      } else {
        w.open('daogrp', { 'xlink:type': 'extended', 'xlink:title': dobj.title, 'xlink:role': inst.is_representative ? 'representative' : undefined, audience: internal() });
        desc();
        for (const fv of versions) {
          w.empty('daoloc', { 'xlink:type': 'locator', 'xlink:href': fv.file_uri, 'xlink:role': fv.use_statement, 'xlink:title': fv.caption, audience: internal(fv) });
        }
        w.close('daogrp');
      }
    }
  }

  protected legalStatus(note: Obj): void {
    const w = this.w;
    w.open('accessrestrict', { audience: this.audience(note) });
    w.open('legalstatus', { id: prefixId(note.persistent_id), audience: this.audience(note) }).raw(phrase(noteContent(note, this.o.includeUnpublished))).close();
    w.close('accessrestrict');
  }

  protected listAttributes(ordered: boolean, numeration: string | undefined, audience: string | undefined): Attributes {
    return { type: ordered ? 'ordered' : 'deflist', numeration, audience };
  }

  protected indexReference(item: Obj): Attributes {
    return { target: prefixId(item.reference) };
  }

  /** A note with nothing in it still needs a block after its head. */
  protected needsEmptyParagraph(kind: 'note' | 'bibliography', note: Obj): boolean {
    return kind === 'note' && !noteContents(note).length && !(note.subnotes ?? []).some((sub: Obj) => this.shown(sub));
  }

  protected noIndexEntries(): void {}
}
