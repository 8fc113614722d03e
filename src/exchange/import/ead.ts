/**
 * EAD import (`ead_xml`): EAD 2002 with or without its namespace (DTD-based files included) and
 * EAD3, read as a stream of blocks (the header, the description, each component without its
 * sub-components), so memory follows one component, not the file. One transaction per file:
 * the resource, its archival objects in order, top containers (matched by type, indicator and
 * barcode in the repository), agents and subjects (matched by authority id, then heading),
 * digital objects from dao/daogrp, all written through the same operations as the API.
 *
 * element → record field (as ArchivesSpace's EAD converter):
 *   eadid (@url) → ead_id (ead_location); titleproper (@type filing) → finding_aid_title (filing title);
 *   subtitle, author, sponsor, publicationstmt/date, editionstmt, seriesstmt, notestmt → finding_aid_*;
 *   langusage/language (@langcode @scriptcode) → finding_aid_language, finding_aid_script; revisiondesc/change → revision_statements
 *   archdesc / c, c01..c12 (@level @otherlevel @id) → resource / archival object (level, other_level, ref_id)
 *   unittitle → title; unitid → id_0 (resource) or component_id; unitdate (@normal @type @datechar) → dates
 *   physdesc/extent "3 linear feet" → extents (number, extent_type); langmaterial/language → lang_materials
 *   origination/persname|corpname|famname|name → linked agents (creator, @role relator); controlaccess → subjects, agents (subject)
 *   container (@type @label "[barcode]" @parent) → instances with top container, child and grandchild
 *   dao, daogrp/daoloc → digital objects with file versions, linked as digital object instances
 *   abstract, physloc, materialspec → single-part notes; the other notes → multi-part notes (head → label;
 *   p → text; chronlist, list, list@type=deflist → subnotes); bibliography → note_bibliography; index → note_index
 * Tolerances (a warning in the log each): a resource without unitid, dates, extent or language gets a
 * stated placeholder; values missing from editable value lists are added to them; a level EAD does not
 * name becomes otherlevel.
 */
import crypto from 'node:crypto';
import type { Obj } from '../../json';
import { importFile, ImportSession, type ImportWriter, slug } from './session';
import type { Tx } from '../../store/database';
import { recordsWithJsonValue } from '../../store/record-finders';
import { descendants, kid, kids, markupOf, Path, readBlocks, textOf, XmlNode } from './xml-blocks';
import { ImportFailed, Importer, ImportReport } from './types';

/** An import option as ArchivesSpace's job sends one ("1") or as JSON says it. */
const isChosen = (v: unknown) => v === true || v === '1' || v === 'true';
const COMPONENT = /^c(0[1-9]|1[0-2])?$/;
const SINGLE_NOTES = new Set(['abstract', 'physloc', 'materialspec', 'physfacet', 'dimensions']);
const MULTI_NOTES = new Set([
  'accruals', 'appraisal', 'arrangement', 'bioghist', 'accessrestrict', 'userestrict', 'custodhist', 'altformavail', 'originalsloc',
  'fileplan', 'odd', 'acqinfo', 'otherfindaid', 'phystech', 'prefercite', 'processinfo', 'relatedmaterial', 'scopecontent',
  'separatedmaterial', 'legalstatus',
]);
const LEVELS = new Set(['class', 'collection', 'file', 'fonds', 'item', 'otherlevel', 'recordgrp', 'series', 'subfonds', 'subgrp', 'subseries']);
const AGENT_TYPES: Record<string, string> = { persname: 'agent_person', corpname: 'agent_corporate_entity', famname: 'agent_family', name: 'agent_corporate_entity' };
const TERM_TYPES: Record<string, string> = {
  subject: 'topical', geogname: 'geographic', genreform: 'genre_form', occupation: 'occupation', function: 'function', title: 'uniform_title',
};
const EXTENT_UNITS: Array<[RegExp, string]> = [
  [/^lin(ear|\.)?\s*(f(ee|oo)?t|ft\.?)$/, 'linear_feet'], [/^cu(bic|\.)?\s*(f(ee|oo)?t|ft\.?)$/, 'cubic_feet'],
  [/^linear\s*met(er|re)s?$/, 'linear_meters'], [/^items?$/, 'items'], [/^box(es)?$/, 'boxes'], [/^folders?$/, 'folders'],
  [/^volumes?$/, 'volumes'], [/^leaves$|^leaf$/, 'leaves'], [/^reels?$/, 'reels'], [/^sheets?$/, 'sheets'], [/^cassettes?$/, 'cassettes'],
];

const ISO_DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;

interface Owner {
  node: XmlNode;
  kind: 'resource' | 'component';
  uri?: string;
  path: Path;
}

class EadImport extends ImportSession {
  private header: XmlNode | undefined;
  private resourceUri: string | undefined;
  private readonly owners: Owner[] = [];
  private readonly containers = new Map<string, string>();
  /** digital_object_id → uri, for the digital objects this file linked. */
  private readonly digitalObjects = new Map<string, string>();
  private components = 0;

  // ------------------------------------------------------------------------------------------
  // blocks

  isBlock(name: string, path: Path): boolean {
    return name === 'eadheader' || name === 'control' || name === 'archdesc' || (COMPONENT.test(name) && path.includes('dsc'));
  }

  async onOpen(node: XmlNode, path: Path): Promise<void> {
    if (path.length === 1 && node.name !== 'ead') throw new ImportFailed(`${this.input.name}: not an EAD file (its root element is <${node.name}>, not <ead>)`);
    if (node.name === 'archdesc') this.owners.push({ node, kind: 'resource', path });
    else if (COMPONENT.test(node.name) && path.includes('dsc')) {
      // A component's parent is written before it (its children are placed under its URI).
      await this.flush(this.owners[this.owners.length - 1]);
      this.owners.push({ node, kind: 'component', path });
    }
  }

  async onBlock(node: XmlNode, path: Path): Promise<void> {
    if (node.name === 'eadheader' || node.name === 'control') this.header = node;
    else if (node.name === 'archdesc' || (COMPONENT.test(node.name) && path.includes('dsc'))) {
      const owner = this.owners.pop()!;
      await this.flush(owner);
    }
  }

  private async flush(owner: Owner | undefined): Promise<void> {
    if (!owner || owner.uri) return;
    if (owner.kind === 'resource') {
      owner.uri = await this.create('resource', await this.resourceBody(owner.node, owner.path), owner.path);
      this.resourceUri = owner.uri;
      return;
    }
    if (!this.resourceUri) throw new ImportFailed(`${this.input.name}: ${owner.path.join('/')}: a component outside a described collection (no archdesc)`);
    const parent = this.owners.filter((o) => o !== owner).pop();
    const body = await this.describe(owner.node, owner.path, 'component');
    if (!body.title && !body.dates?.length) this.untitled(owner, body);
    body.resource = { ref: this.resourceUri };
    if (parent && parent.kind === 'component') body.parent = { ref: parent.uri };
    owner.uri = await this.create('archival_object', body, owner.path);
    this.out.progress(++this.components);
  }

  /**
   * A component with neither title nor date, which ArchivesSpace refuses: refused here too, with
   * its line and the fix; with the untitled_components option, titled from its containers
   * ("Box 3, Folder 7"), else its level, with a warning.
   */
  private untitled(owner: Owner, body: Obj): void {
    const where = `line ${owner.node.line}, ${owner.path.join('/')}`;
    if (!isChosen(this.input.options?.untitled_components)) {
      throw new ImportFailed(`${this.input.name}: ${where}: a component with neither title nor date; give it a unittitle or a unitdate, or import with the untitled_components option (it titles such components from their container or level)`);
    }
    const name = (type: string) => type.charAt(0).toUpperCase() + type.slice(1).replace(/_/g, ' ');
    const containers = kids(kid(owner.node, 'did'), 'container').filter((c) => textOf(c))
      .map((c) => `${name(c.attrs.type ?? c.attrs.localtype ?? 'container')} ${textOf(c)}`);
    body.title = containers.join(', ') || `Untitled ${body.level === 'otherlevel' ? body.other_level : body.level}`;
    this.warn(`${where}: no title and no date; titled "${body.title}" (untitled_components)`);
  }

  // ------------------------------------------------------------------------------------------
  // mapping

  private async resourceBody(node: XmlNode, path: Path): Promise<Obj> {
    const body = await this.describe(node, path, 'resource');
    const h = this.header;
    const where = `${path.join('/')}/did`;
    if (!body.title) throw new ImportFailed(`${this.input.name}: ${where}: no unittitle: a collection needs a title`);
    if (!body.id_0) {
      body.id_0 = textOf(kid(h, 'eadid') ?? kid(h, 'recordid')) || this.input.name.replace(/\.[^.]+$/, '');
      this.warn(`${where}: no unitid; the identifier is taken from the eadid or the file name (${body.id_0})`);
    }
    if (!body.dates?.length) {
      body.dates = [{ date_type: 'single', label: 'creation', expression: 'undated' }];
      this.warn(`${where}: no unitdate; the date is recorded as "undated"`);
    }
    if (!body.extents?.length) {
      body.extents = [{ portion: 'whole', number: '0', extent_type: this.value('extent_extent_type', 'linear_feet'), container_summary: 'extent not stated in the imported finding aid' }];
      this.warn(`${where}: no extent; recorded as 0 with a note saying it was not stated`);
    }
    if (!body.lang_materials?.some((l: Obj) => l.language_and_script)) {
      body.lang_materials = [...(body.lang_materials ?? []), { language_and_script: { language: 'und' } }];
      this.warn(`${where}: no langmaterial/language; the language is recorded as undetermined (und)`);
    }
    if (h) {
      const eadid = kid(h, 'eadid') ?? kid(h, 'recordid');
      if (eadid) {
        body.ead_id = textOf(eadid) || undefined;
        body.ead_location = eadid.attrs.url ?? eadid.attrs.instanceurl;
      }
      const titles = descendants(kid(h, 'filedesc'), 'titleproper');
      const main = titles.find((t) => t.attrs.type !== 'filing');
      const filing = titles.find((t) => t.attrs.type === 'filing');
      if (main) body.finding_aid_title = textOf({ ...main, children: main.children.filter((c) => typeof c === 'string' || c.name !== 'num') }) || undefined;
      if (filing) body.finding_aid_filing_title = textOf(filing) || undefined;
      const first = (name: string) => textOf(descendants(h, name)[0]) || undefined;
      body.finding_aid_subtitle = first('subtitle');
      body.finding_aid_author = first('author');
      body.finding_aid_sponsor = first('sponsor');
      body.finding_aid_date = textOf(descendants(kid(h, 'filedesc'), 'date')[0]) || undefined;
      body.finding_aid_edition_statement = first('editionstmt');
      body.finding_aid_series_statement = first('seriesstmt');
      body.finding_aid_note = first('notestmt');
      const language = descendants(kid(h, 'profiledesc') ?? h, 'language')[0];
      if (language?.attrs.langcode) body.finding_aid_language = language.attrs.langcode;
      if (language?.attrs.scriptcode) body.finding_aid_script = language.attrs.scriptcode;
      body.revision_statements = descendants(h, 'change').map((c) => ({ date: textOf(kid(c, 'date')) || undefined, description: textOf(kid(c, 'item')) || undefined, publish: true }));
      if (h.attrs.findaidstatus) body.finding_aid_status = this.value('resource_finding_aid_status', h.attrs.findaidstatus);
    }
    if (!body.finding_aid_language) {
      body.finding_aid_language = 'und';
      this.warn('no language of the finding aid (langusage/language@langcode); recorded as undetermined (und)');
    }
    if (!body.finding_aid_script) body.finding_aid_script = 'Zyyy';
    return body;
  }

  /** What a resource and a component share: did, notes, controlled access, instances. */
  private async describe(node: XmlNode, path: Path, kind: 'resource' | 'component'): Promise<Obj> {
    const body: Obj = { publish: node.attrs.audience !== 'internal' };
    const level = (node.attrs.level ?? (kind === 'resource' ? 'collection' : 'file')).trim();
    if (LEVELS.has(level)) body.level = level;
    else {
      body.level = 'otherlevel';
      body.other_level = level;
    }
    if (node.attrs.otherlevel) {
      body.level = 'otherlevel';
      body.other_level = node.attrs.otherlevel;
    }
    if (body.level === 'otherlevel' && !body.other_level) body.other_level = 'unspecified';
    if (kind === 'component' && node.attrs.id) body.ref_id = node.attrs.id.replace(/^aspace_/, '').replace(/[^a-zA-Z0-9\-_:.]/g, '_');
    const did = kid(node, 'did');
    const title = kid(did, 'unittitle');
    if (title) body.title = markupOf({ ...title, children: title.children.filter((c) => typeof c === 'string' || c.name !== 'unitdate') }) || undefined;
    const unitid = kids(did, 'unitid').find((u) => !['aspace_uri', 'ark', 'ark-superseded'].includes(u.attrs.type ?? '') && u.attrs.audience !== 'internal');
    if (unitid && textOf(unitid)) {
      if (kind === 'resource') body.id_0 = textOf(unitid).slice(0, 255);
      else body.component_id = textOf(unitid).slice(0, 255);
    }
    const fromUnitdates = [...kids(did, 'unitdate'), ...descendants(title, 'unitdate')].map((node) => ({ node, date: this.date(node, path) as Obj | undefined }));
    body.dates = fromUnitdates.map((x) => x.date).filter(Boolean);
    // EAD3: unitdatestructured (daterange fromdate/todate, datesingle) and physdescstructured (quantity, unittype).
    // A unitdate of the same type and character without normalised dates is the same date's
    // expression (as ArchivesSpace writes EAD3): the two make one date.
    const paired = new Set<object>();
    for (const d of kids(did, 'unitdatestructured')) {
      const from = descendants(d, 'fromdate')[0] ?? descendants(d, 'datesingle')[0];
      const to = descendants(d, 'todate')[0];
      const std = (x: XmlNode | undefined) => (x?.attrs.standarddate && ISO_DATE.test(x.attrs.standarddate) ? x.attrs.standarddate : undefined);
      const b = std(from);
      const e = std(to);
      const dateType = d.attrs.unitdatetype === 'bulk' ? 'bulk' : !e || e === b ? (b ? 'single' : 'inclusive') : 'inclusive';
      const twin = b ? fromUnitdates.find((x) => x.date && !x.date.begin && !paired.has(x)
        && (x.node.attrs.unitdatetype ?? x.node.attrs.type ?? 'inclusive') === (d.attrs.unitdatetype ?? 'inclusive')
        && (x.node.attrs.datechar ?? '') === (d.attrs.datechar ?? '')) : undefined;
      if (twin?.date) {
        paired.add(twin);
        Object.assign(twin.date, { date_type: dateType, begin: b, ...(e && e !== b ? { end: e } : {}) });
        continue;
      }
      const expression = [textOf(from), textOf(to)].filter(Boolean).join('-') || undefined;
      if (!b && !expression) continue;
      body.dates.push({ date_type: dateType, label: this.value('date_label', d.attrs.datechar ?? 'creation'), expression, begin: b, end: e && e !== b ? e : undefined });
    }
    body.extents = kids(did, 'physdesc').flatMap((p) => this.extents(p, path));
    for (const p of kids(did, 'physdescstructured')) {
      const quantity = textOf(kid(p, 'quantity'));
      if (!/^[\d.,]+$/.test(quantity)) continue;
      body.extents.push({
        portion: p.attrs.coverage === 'part' ? 'part' : 'whole', number: quantity.replace(/,/g, ''),
        extent_type: this.value('extent_extent_type', EXTENT_UNITS.find(([re]) => re.test(textOf(kid(p, 'unittype')).toLowerCase()))?.[1] ?? (textOf(kid(p, 'unittype')) || 'items')),
      });
    }
    const physdescNotes = kids(did, 'physdesc').filter((p) => !kids(p, 'extent').length && textOf(p));
    body.lang_materials = kids(did, 'langmaterial').flatMap((l) => descendants(l, 'language').map((lang) => ({
      language_and_script: { language: lang.attrs.langcode ?? 'und', ...(lang.attrs.scriptcode ? { script: lang.attrs.scriptcode } : {}) },
    })));
    const notes: Obj[] = [];
    for (const l of kids(did, 'langmaterial')) {
      if (!descendants(l, 'language').length && textOf(l)) body.lang_materials.push({ notes: [{ jsonmodel_type: 'note_langmaterial', type: 'langmaterial', content: [textOf(l)], publish: true }] });
    }
    for (const p of physdescNotes) notes.push({ jsonmodel_type: 'note_singlepart', type: 'physdesc', content: [markupOf(p)], publish: true });
    for (const n of kids(did)) {
      if (SINGLE_NOTES.has(n.name)) notes.push({ jsonmodel_type: 'note_singlepart', type: n.name, label: n.attrs.label, content: [markupOf(n)], publish: n.attrs.audience !== 'internal' });
      else if (n.name === 'note') notes.push(this.multipart('odd', n));
    }
    for (const n of kids(node)) {
      if (MULTI_NOTES.has(n.name)) notes.push(this.multipart(n.name, n));
      else if (n.name === 'bibliography') {
        notes.push({
          jsonmodel_type: 'note_bibliography', label: textOf(kid(n, 'head')) || undefined, publish: n.attrs.audience !== 'internal',
          content: kids(n, 'p').map(markupOf).filter(Boolean), items: descendants(n, 'bibref').map(markupOf).filter(Boolean),
        });
      } else if (n.name === 'index') {
        notes.push({
          jsonmodel_type: 'note_index', label: textOf(kid(n, 'head')) || undefined, publish: n.attrs.audience !== 'internal',
          content: kids(n, 'p').map(markupOf).filter(Boolean),
          items: descendants(n, 'indexentry').map((e) => {
            const entry = kids(e).find((c) => c.name !== 'ref' && c.name !== 'ptr');
            return entry ? { type: INDEX_TYPES[entry.name] ?? 'subject', value: textOf(entry), reference_text: textOf(kid(e, 'ref')) || undefined } : undefined;
          }).filter(Boolean),
        });
      }
    }
    // An empty note (<scopecontent/>, <abstract/>, a head alone) is skipped, as ArchivesSpace's importer skips it.
    for (const n of notes) if (Array.isArray(n.content)) n.content = n.content.filter((c: unknown) => typeof c !== 'string' || c.trim());
    body.notes = notes.filter((n) => (n.content?.length ?? 0) || (n.subnotes?.length ?? 0) || (n.items?.length ?? 0));
    if (body.notes.length < notes.length) this.warn(`${path.join('/')}: ${notes.length - body.notes.length} empty note(s) skipped`);
    const agents: Obj[] = [];
    for (const o of kids(did, 'origination')) {
      for (const n of kids(o).filter((c) => AGENT_TYPES[c.name])) agents.push({ ref: await this.agent(AGENT_TYPES[n.name], textOf(n), n.attrs), role: 'creator', ...this.relator(n, path) });
    }
    const subjects: Obj[] = [];
    for (const access of descendants(node, 'controlaccess').filter((c) => !descendants(c, 'controlaccess').length || true)) {
      for (const n of kids(access)) {
        if (AGENT_TYPES[n.name]) agents.push({ ref: await this.agent(AGENT_TYPES[n.name], textOf(n), n.attrs), role: 'subject', ...this.relator(n, path) });
        else if (TERM_TYPES[n.name]) {
          const ref = await this.subject(TERM_TYPES[n.name], textOf(n), n.attrs);
          if (!subjects.some((x) => x.ref === ref)) subjects.push({ ref });
        }
      }
    }
    body.linked_agents = agents.filter((a, i) => agents.findIndex((b) => b.ref === a.ref && b.role === a.role) === i);
    body.subjects = subjects;
    body.instances = [...(await this.containerInstances(did, path)), ...(await this.digitalInstances(node, did, path))];
    return body;
  }

  /** @role as a relator when it is one of the list's codes (EAD files also write roles like "subject" there). */
  private relator(n: XmlNode, path: Path): Obj {
    const role = n.attrs.role?.trim();
    if (!role) return {};
    if (this.s.enums.get('linked_agent_archival_record_relators')?.values.includes(role)) return { relator: role };
    if (!this.unknownRelators.has(role)) {
      this.unknownRelators.add(role);
      this.warn(`${path.join('/')}: role "${role}" is not a relator code; the agent is linked without a relator`);
    }
    return {};
  }

  private readonly unknownRelators = new Set<string>();

  private date(d: XmlNode, path: Path): Obj | undefined {
    let expression = textOf(d) || undefined;
    const [begin, end] = (d.attrs.normal ?? '').split('/').map((x) => x.trim());
    const ok = (x: string | undefined) => (x && ISO_DATE.test(x) ? x : undefined);
    let b = ok(begin);
    let e = ok(end);
    if (b && e && e.padEnd(10, '9') < b.padEnd(10, '0')) {
      this.warn(`${path.join('/')}/did/unitdate: normal="${d.attrs.normal}" ends before it begins; kept as text only`);
      expression ??= d.attrs.normal;
      b = undefined;
      e = undefined;
    }
    if (!expression && !b) return undefined;
    const bulk = d.attrs.type === 'bulk';
    const single = !e || e === b;
    return {
      date_type: bulk ? 'bulk' : single && b ? 'single' : 'inclusive',
      label: this.value('date_label', d.attrs.datechar && slug(d.attrs.datechar) !== 'creation' ? d.attrs.datechar : 'creation'),
      expression, begin: b, end: single ? undefined : e, certainty: undefined,
    };
  }

  private extents(physdesc: XmlNode, path: Path): Obj[] {
    const out: Obj[] = [];
    for (const e of kids(physdesc, 'extent')) {
      const text = textOf(e);
      const m = /^([\d.,]+)\s*(.*)$/.exec(text);
      if (!m) {
        if (text) this.warn(`${path.join('/')}/did/physdesc/extent: "${text}" has no number; kept as a physical description note`);
        continue;
      }
      const unitText = m[2].replace(/\(.*\)$/, '').trim().toLowerCase();
      const known = EXTENT_UNITS.find(([re]) => re.test(unitText))?.[1];
      out.push({
        portion: physdesc.attrs.altrender === 'part' ? 'part' : 'whole', number: m[1].replace(/,/g, ''),
        extent_type: this.value('extent_extent_type', known ?? (unitText || 'items')),
        physical_details: textOf(kid(physdesc, 'physfacet')) || undefined, dimensions: textOf(kid(physdesc, 'dimensions')) || undefined,
      });
    }
    return out;
  }

  private multipart(type: string, n: XmlNode): Obj {
    const subnotes: Obj[] = [];
    const walk = (block: XmlNode) => {
      for (const c of kids(block)) {
        if (c.name === 'p' || c.name === 'blockquote') {
          const text = markupOf(c);
          if (text) subnotes.push({ jsonmodel_type: 'note_text', content: text, publish: true });
          for (const inner of kids(c).filter((x) => x.name === 'list' || x.name === 'chronlist')) walk({ ...c, children: [inner] });
        } else if (c.name === 'chronlist') {
          subnotes.push({
            jsonmodel_type: 'note_chronology', title: textOf(kid(c, 'head')) || undefined, publish: true,
            items: kids(c, 'chronitem').map((i) => ({ event_date: textOf(kid(i, 'date')) || undefined, events: descendants(i, 'event').map(markupOf).filter(Boolean) })),
          });
        } else if (c.name === 'list' && c.attrs.type === 'deflist') {
          subnotes.push({
            jsonmodel_type: 'note_definedlist', title: textOf(kid(c, 'head')) || undefined, publish: true,
            items: kids(c, 'defitem').map((i) => ({ label: textOf(kid(i, 'label')), value: markupOf(kid(i, 'item') ?? i) })),
          });
        } else if (c.name === 'list') {
          subnotes.push({
            jsonmodel_type: 'note_orderedlist', title: textOf(kid(c, 'head')) || undefined, publish: true,
            enumeration: c.attrs.numeration && ['arabic', 'loweralpha', 'upperalpha', 'lowerroman', 'upperroman', 'null'].includes(c.attrs.numeration) ? c.attrs.numeration : undefined,
            items: kids(c, 'item').map(markupOf).filter(Boolean),
          });
        } else if (MULTI_NOTES.has(c.name) || c.name === 'note' || c.name === 'legalstatus') walk(c);
        else if (c.name !== 'head' && textOf(c)) subnotes.push({ jsonmodel_type: 'note_text', content: markupOf(c), publish: true });
      }
    };
    walk(n);
    const own = n.children.filter((c) => typeof c === 'string').join('').trim();
    if (own) subnotes.unshift({ jsonmodel_type: 'note_text', content: own, publish: true });
    return {
      jsonmodel_type: 'note_multipart', type: type === 'legalstatus' ? 'legalstatus' : type, label: textOf(kid(n, 'head')) || undefined,
      persistent_id: n.attrs.id, publish: n.attrs.audience !== 'internal', subnotes,
    };
  }

  private async containerInstances(did: XmlNode | undefined, path: Path): Promise<Obj[]> {
    const all = kids(did, 'container');
    const instances: Obj[] = [];
    // A container with no @parent starts an instance; those naming it as parent are its child and grandchild.
    const tops = all.filter((c) => !c.attrs.parent || !all.some((o) => o.attrs.id === c.attrs.parent));
    const chained = (tops.length === all.length && all.length > 1 && !all.some((c) => c.attrs.id)) ? [all] : tops.map((top) => {
      const chain = [top];
      for (let next = all.find((c) => c.attrs.parent && c.attrs.parent === chain[chain.length - 1].attrs.id); next && chain.length < 3;
        next = all.find((c) => c.attrs.parent && c.attrs.parent === chain[chain.length - 1].attrs.id)) chain.push(next);
      return chain;
    });
    for (const chain of chained) {
      const [top, child, grandchild] = chain;
      const label = top.attrs.label ?? '';
      const barcode = /\[([^\]]+)\]/.exec(label)?.[1]?.trim();
      const instanceType = this.value('instance_instance_type', label.replace(/\[[^\]]*\]/, '').replace(/\(.*\)/, '').trim() || 'mixed_materials');
      const ref = await this.topContainer(top.attrs.type ?? top.attrs.localtype ?? 'box', textOf(top) || 'unnumbered', barcode, path);
      const sub: Obj = { top_container: { ref } };
      if (child) Object.assign(sub, { type_2: this.value('container_type', child.attrs.type ?? child.attrs.localtype ?? 'folder'), indicator_2: textOf(child) || 'unnumbered' });
      if (grandchild) Object.assign(sub, { type_3: this.value('container_type', grandchild.attrs.type ?? grandchild.attrs.localtype ?? 'folder'), indicator_3: textOf(grandchild) || 'unnumbered' });
      instances.push({ instance_type: instanceType, sub_container: sub });
    }
    return instances;
  }

  private async topContainer(rawType: string, indicator: string, barcode: string | undefined, path: Path): Promise<string> {
    const type = this.value('container_type', rawType);
    const key = `${type}|${indicator}|${barcode ?? ''}`;
    const cached = this.containers.get(key);
    if (cached) return cached;
    const rows = await recordsWithJsonValue(this.trx, { type: 'top_container', repoId: this.repoId }, 'indicator', indicator, 50);
    const found = rows.find(({ record: c }) => c.indicator === indicator && (c.type ?? '') === type && (c.barcode ?? '') === (barcode ?? ''))?.uri;
    const uri = found ?? await this.create('top_container', { type, indicator, ...(barcode ? { barcode } : {}) }, [...path, 'did', 'container']);
    this.containers.set(key, uri);
    return uri;
  }

  private async digitalInstances(node: XmlNode, did: XmlNode | undefined, path: Path): Promise<Obj[]> {
    const daos = [...kids(did, 'dao'), ...kids(node, 'dao'), ...kids(did, 'daogrp'), ...kids(node, 'daogrp'), ...kids(did, 'daoset')];
    const out: Obj[] = [];
    for (const d of daos) {
      const locs = d.name === 'dao' ? [d] : [...kids(d, 'daoloc'), ...kids(d, 'dao')];
      const hrefs = locs.map((l) => l.attrs.href).filter(Boolean);
      const title = d.attrs.title ?? (textOf(kid(d, 'daodesc')) || hrefs[0] || 'Digital object');
      const id = (d.attrs.href ?? hrefs[0] ?? crypto.randomUUID()).slice(0, 255);
      // One digital object linked from several components (or already in the repository) is
      // linked, not created again: its id is unique in the repository.
      const uri = this.digitalObjects.get(id) ?? await this.findByLookup('digital_object', 'digital_object_id', id) ?? await this.create('digital_object', {
        title: title.slice(0, 8192), digital_object_id: `${id}`, publish: d.attrs.audience !== 'internal',
        file_versions: hrefs.map((href) => ({ file_uri: href, publish: true })),
      }, [...path, d.name]);
      this.digitalObjects.set(id, uri);
      out.push({ instance_type: 'digital_object', digital_object: { ref: uri } });
    }
    return out;
  }

  result(): ImportReport {
    if (!this.resourceUri) throw new ImportFailed(`${this.input.name}: no archdesc: nothing to import`);
    return this.report;
  }
}

const INDEX_TYPES: Record<string, string> = {
  corpname: 'corporate_entity', genreform: 'genre_form', name: 'name', occupation: 'occupation', persname: 'person',
  subject: 'subject', famname: 'family', function: 'function', geogname: 'geographic_name', title: 'title',
};

export const eadImporter: Importer = {
  type: 'ead_xml',
  label: 'Import EAD records from an XML file',
  async run(s, repoId, actor, input, out) {
    const write = async (writer: Tx | ImportWriter) => {
      const job = new EadImport(s, writer, repoId, actor, input, out);
      await readBlocks(input.path, input.name, job, out.signal);
      const report = job.result();
      out.log('info', `${input.name}: ${Object.entries(report.counts).map(([t, n]) => `${n} ${t}`).join(', ')}`);
      return report;
    };
    return importFile(s, out, write);
  },
};

