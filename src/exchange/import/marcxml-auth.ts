/**
 * MARC authority import (`marcxml_auth_agent`): each authority record of a file whose heading is a
 * name becomes an agent (ArchivesSpace's MarcXMLAuthAgentConverter), one transaction per file,
 * records read one at a time.
 *
 * field → agent:
 *   100 ind1 0/1 → agent_person; 100 ind1 3 → agent_family; 110, 111 → agent_corporate_entity
 *     (a record with another heading, a 130 title or a 150 topic, is not an agent: skipped, logged)
 *   1xx → the authorized name; 4xx of the same kind → the other names. Persons: $a split into primary
 *     name and rest of name (ind1 1: "Surname, Forenames", inverted; ind1 0: direct), $b number,
 *     $c title, $d dates, $g qualifier, $q fuller form (else 378 $q). Corporate bodies: $a primary
 *     name, $b subordinate names, $c location, $d dates, $n number, $g qualifier, ind1 1 jurisdiction,
 *     111/411 conference ($e subordinate name; 111 $q qualifier, 411 $q second subordinate name).
 *     Families: $a family name, $b $c $g qualifier, $d dates
 *   leader/05, 003, 008, 040 $a $b → agent_record_controls (status, agency, language, 008's codes)
 *   001 (unless 003 is DLC and there is an 010), 010, 016, 024, 035 → agent_record_identifiers (the first primary)
 *   040 $e → agent_conventions_declarations; 040 $d → agent_other_agency_codes (other than the maintenance agency)
 *   046 $f $q $s / $g $r $t → dates_of_existence; 375 → agent_genders; 377 $a $l → used_languages
 *   670 → agent_sources; 678 → a bioghist note ($a abstract, $b text)
 *   500, 510, 511 → related agents (matched by heading or created), the relationship from $w, $i, $4
 *   with import_subjects: 372 → agent_topics (persons) or agent_functions; 374 → agent_occupations;
 *     370 $a $b $c $e $f → agent_places (birth, death, country, residence, other); each a subject
 *   with import_events: 008/00-05 (else 005) → an agent_maintenance_history "created"
 */
import type { Obj } from '../../json';
import { recordsWithJsonValue } from '../../store/record-finders';
import { importFile, ImportSession } from './session';
import { kids, Path, readBlocks, textOf, XmlNode } from './xml-blocks';
import { ImportFailed, Importer, ImportReport } from './types';

const STATUS: Record<string, string> = { n: 'new', a: 'upgraded', c: 'revised_corrected', d: 'deleted', o: 'cancelled_obsolete', s: 'deleted_split', x: 'deleted_replaced' };
/** 008 positions → agent_record_control fields ('#' is MARC's blank, written as a space in files). */
const F008: Array<[number, string, Record<string, string>]> = [
  [7, 'romanization', { a: 'int_std', b: 'nat_std', c: 'nl_assoc_std', d: 'nl_bib_agency_std', e: 'local_std', f: 'unknown_std', g: 'conv_rom_cat_agency', n: 'not_applicable' }],
  [28, 'government_agency_type', { '#': 'ngo', a: 'sac', c: 'multilocal', f: 'fed', I: 'int_gov', l: 'local', m: 'multistate', o: 'undetermined', s: 'provincial', u: 'unknown', z: 'other', '|': 'unknown' }],
  [29, 'reference_evaluation', { a: 'tr_consistent', b: 'tr_inconsistent', n: 'not_applicable', '|': 'natc' }],
  [32, 'name_type', { a: 'differentiated', b: 'undifferentiated', n: 'not_applicable', '|': 'natc' }],
  [33, 'level_of_detail', { a: 'fully_established', b: 'memorandum', c: 'provisional', d: 'preliminary', n: 'not_applicable', '|': 'natc' }],
  [38, 'modified_record', { '#': 'not_modified', s: 'shortened', x: 'missing_characters', '|': 'natc' }],
  [39, 'cataloging_source', { '#': 'nat_bib_agency', c: 'ccp', d: 'other', u: 'unknown', '|': 'natc' }],
];
/** $w/0 of a 5xx → relator, specific relator, relationship type. */
const RELATIONS: Record<string, [string, string | undefined, string]> = {
  a: ['is_earlier_form_of', undefined, 'agent_relationship_earlierlater'], b: ['is_later_form_of', undefined, 'agent_relationship_earlierlater'],
  d: ['is_identified_with', 'Acronym', 'agent_relationship_identity'], f: ['is_associative_with', 'Musical composition', 'agent_relationship_associative'],
  g: ['is_associative_with', 'Broader term', 'agent_relationship_associative'], h: ['is_associative_with', 'Narrower term', 'agent_relationship_associative'],
};
const PLACES: Record<string, string> = { a: 'place_of_birth', b: 'place_of_death', c: 'assoc_country', e: 'residence', f: 'other_assoc' };

/** The text of an element as written, spaces kept. */
const raw = (node: XmlNode | undefined) => (node?.children ?? []).filter((c): c is string => typeof c === 'string').join('');

type Kind = 'person' | 'family' | 'corporate_entity';
const trimEnd = (text: string, chars: string) => text.trim().replace(new RegExp(`[${chars.replace(/[\]\\^-]/g, '\\$&')}\\s]+$`), '');

class MarcAuthImport extends ImportSession {
  private written = 0;
  private records = 0;
  options: { events: boolean; subjects: boolean } = { events: false, subjects: false };

  isBlock(name: string): boolean {
    return name === 'record';
  }

  onOpen(node: XmlNode, path: Path): void {
    if (path.length === 1 && node.name !== 'collection' && node.name !== 'record') {
      throw new ImportFailed(`${this.input.name}: not a MARCXML file (its root element is <${node.name}>, not <collection> or <record>)`);
    }
  }

  async onBlock(node: XmlNode, path: Path): Promise<void> {
    if (node.name !== 'record') return;
    this.records++;
    const where = `${path.join('/')}[${this.records}]`;
    const fields = (...tags: string[]) => kids(node, 'datafield').filter((d) => tags.includes(d.attrs.tag ?? ''));
    // Fixed-length fields are read as written: their spaces hold positions (008/29 is the 30th character).
    const control = (tag: string) => raw(kids(node, 'controlfield').find((c) => c.attrs.tag === tag));
    const heading = kids(node, 'datafield').find((d) => ['100', '110', '111'].includes(d.attrs.tag ?? ''));
    if (!heading) {
      const tag = kids(node, 'datafield').find((d) => /^1\d\d$/.test(d.attrs.tag ?? ''))?.attrs.tag;
      this.warn(`${where}: ${tag ? `its heading is a ${tag}, not a name (100, 110, 111)` : 'no heading (1xx)'}; not an agent, skipped`);
      return;
    }
    const kind: Kind = heading.attrs.tag !== '100' ? 'corporate_entity' : heading.attrs.ind1 === '3' ? 'family' : 'person';
    const type = `agent_${kind}`;
    const others = kind === 'corporate_entity' ? fields('410', '411') : fields('400').filter((d) => (kind === 'family') === (d.attrs.ind1 === '3'));
    const names = [heading, ...others]
      .map((d) => this.name(kind, d, fields('378')));
    names[0].is_display_name = true;

    const ids = this.identifiers(node, control);
    const primary = ids.find((i) => i.primary_identifier)?.record_identifier;
    if (primary) {
      const [existing] = await recordsWithJsonValue(this.trx, { type }, 'record_identifier', primary, 1);
      if (existing && (existing.record.agent_record_identifiers ?? []).some((r: Obj) => r.record_identifier === primary)) {
        this.warn(`${where}: an agent with the record identifier ${primary} exists already (${existing.uri}); it was not created again`);
        this.written++;
        return;
      }
    }
    const agency = this.sub(fields('040')[0], 'a')[0] ?? (control('003').trim() || undefined);
    const body: Obj = {
      publish: true, names, agent_record_identifiers: ids,
      agent_record_controls: [this.recordControl(node, control, agency)],
      agent_conventions_declarations: fields('040').flatMap((f) => this.sub(f, 'e')).map((rule) => ({ name_rule: this.value('name_rule', rule) })),
      agent_other_agency_codes: fields('040').flatMap((f) => this.sub(f, 'd')).filter((code) => code !== agency).map((code) => ({ maintenance_agency: code })),
      dates_of_existence: fields('046').flatMap((f) => this.dates(f)),
      used_languages: fields('377').flatMap((f) => {
        const code = this.sub(f, 'a')[0] ?? this.sub(f, 'l')[0];
        const language = code && this.listed('language_iso639_2', code, where);
        return language ? [{ language }] : [];
      }),
      agent_sources: fields('670').map((f) => ({ source_entry: this.sub(f, 'a')[0], descriptive_note: this.sub(f, 'b')[0], file_uri: this.sub(f, 'u')[0] })),
      notes: fields('678').map((f) => ({
        jsonmodel_type: 'note_bioghist', publish: true,
        ...(f.attrs.ind1 === '0' ? { label: 'Biographical note' } : f.attrs.ind1 === '1' ? { label: 'Administrative history' } : {}),
        subnotes: kids(f, 'subfield').filter((s) => s.attrs.code === 'a' || s.attrs.code === 'b').map((s) => (s.attrs.code === 'a'
          ? { jsonmodel_type: 'note_abstract', content: [textOf(s)] } : { jsonmodel_type: 'note_text', content: textOf(s) })),
      })).filter((n) => n.subnotes.length),
      related_agents: await this.related(fields('500', '510', '511'), heading),
    };
    if (kind === 'person') body.agent_genders = fields('375').flatMap((f) => this.sub(f, 'a').map((g) => ({ gender: this.value('gender', g), dates: this.dates(f, 'dates') })));
    if (this.options.subjects) await this.subjectLinks(body, kind, fields);
    if (this.options.events) {
      const f008 = control('008');
      const date = /^\d{6}/.test(f008) ? `${Number(f008[0]) < 7 ? '20' : '19'}${f008.slice(0, 6)}` : control('005').slice(0, 8);
      if (date) body.agent_maintenance_histories = [{ maintenance_event_type: 'created', maintenance_agent_type: 'machine', event_date: date, agent: this.sub(fields('040')[0], 'd')[0] || 'Missing in File' }];
    }
    await this.create(type, body, [where]);
    this.written++;
    this.out.progress(this.written);
  }

  private sub(d: XmlNode | undefined, codes: string): string[] {
    return kids(d, 'subfield').filter((x) => codes.includes(x.attrs.code ?? '')).map((x) => textOf(x)).filter(Boolean);
  }

  /** A value of a fixed list, or nothing (with a warning) when the list does not hold it. */
  private listed(list: string, value: string, where: string): string | undefined {
    if (this.s.enums.get(list)?.values.includes(value)) return value;
    if (this.s.enums.get(list)?.editable) return this.value(list, value);
    this.warn(`${where}: "${value}" is not in the ${list} list; left out`);
    return undefined;
  }

  /** A name of the kind from a 1xx, 4xx or 5xx field; its sort name made as for any name entered without one. */
  private name(kind: Kind, d: XmlNode, f378: XmlNode[]): Obj {
    return { ...this.nameParts(kind, d, f378), sort_name_auto_generate: true };
  }

  private nameParts(kind: Kind, d: XmlNode, f378: XmlNode[]): Obj {
    const tag = d.attrs.tag ?? '';
    const authorized = /^1/.test(tag);
    const first = (code: string) => this.sub(d, code)[0];
    if (kind === 'person') {
      const a = first('a') ?? '';
      const inverted = d.attrs.ind1 === '1';
      const cut = a.indexOf(inverted ? ', ' : ' ');
      const [primary, rest] = cut > 0 && (inverted || d.attrs.ind1 === '0') ? [a.slice(0, cut), a.slice(cut + (inverted ? 2 : 1))] : [a, undefined];
      const fuller = first('q') ? trimEnd(first('q').replace(/[()]/g, ''), ',') : authorized ? this.sub(f378[0], 'q')[0] : undefined;
      return {
        authorized, name_order: inverted ? 'inverted' : 'direct', primary_name: trimEnd(primary, ','), rest_of_name: rest ? trimEnd(rest, ',') : undefined,
        number: first('b') && trimEnd(first('b'), ','), title: first('c') && trimEnd(first('c'), ','), dates: first('d') && trimEnd(first('d'), ','),
        qualifier: first('g'), fuller_form: fuller,
      };
    }
    if (kind === 'family') {
      return {
        authorized, family_name: first('a') ?? '', dates: first('d') && trimEnd(first('d'), ':'),
        qualifier: first('g') ?? (first('c') ? trimEnd(first('c').replace(/[()]/g, ''), ',') : first('b')),
      };
    }
    const meeting = /11$/.test(tag);
    const subordinates = meeting ? [] : this.sub(d, 'b');
    return {
      authorized, primary_name: trimEnd(first('a') ?? '', '.'), conference_meeting: meeting, jurisdiction: d.attrs.ind1 === '1',
      subordinate_name_1: meeting ? first('e') : subordinates[0], subordinate_name_2: meeting ? (tag !== '111' ? first('q') : undefined) : subordinates.slice(1).join('. ') || undefined,
      location: first('c'), dates: first('d'), number: first('n') && trimEnd(first('n').replace(/[():]/g, ''), '.'),
      qualifier: tag === '111' && first('q') ? `Name of meeting following jurisdiction name entry element: ${first('q')}` : first('g'),
    };
  }

  private identifiers(node: XmlNode, control: (tag: string) => string): Obj[] {
    const fields = (tag: string) => kids(node, 'datafield').filter((d) => d.attrs.tag === tag);
    const ids: Obj[] = [];
    const dlc = control('003').trim() === 'DLC' && fields('010').length > 0;
    if (control('001').trim() && !dlc) ids.push({ record_identifier: control('001').trim(), source: 'local' });
    for (const tag of ['010', '016', '024', '035']) {
      for (const f of fields(tag)) {
        // As written: an LCCN's spaces are part of it ("n  88218900 ").
        const node = kids(f, 'subfield').find((x) => (tag === '024' ? 'a01' : 'a').includes(x.attrs.code ?? ''));
        const value = raw(node);
        if (!value?.trim()) continue;
        const id: Obj = { record_identifier: value, source: 'local' };
        if (tag === '010' || (tag === '035' && value.startsWith('(DLC)'))) Object.assign(id, { source: 'naf', identifier_type: 'loc' });
        else if (tag === '016' && (f.attrs.ind1 ?? ' ').trim() === '') id.source = 'lac';
        if (f.attrs.ind1 === '7') Object.assign(id, { identifier_type: 'local', ...(this.sub(f, '2')[0] ? { source: this.sub(f, '2')[0] } : {}) });
        ids.push(id);
      }
    }
    return ids.map((id, i) => ({
      ...id, record_identifier: String(id.record_identifier).slice(0, 255), primary_identifier: i === 0,
      source: this.value('name_source', id.source), ...(id.identifier_type ? { identifier_type: this.value('identifier_type', id.identifier_type) } : {}),
    }));
  }

  private recordControl(node: XmlNode, control: (tag: string) => string, agency: string | undefined): Obj {
    const f008 = control('008');
    const leader = raw(kids(node, 'leader')[0]);
    const f040 = kids(node, 'datafield').find((d) => d.attrs.tag === '040');
    const language = this.sub(f040, 'b')[0] ?? ({ b: 'mul', e: 'eng', f: 'fre' } as Record<string, string>)[f008[8] ?? ''];
    const out: Obj = { maintenance_status: STATUS[leader[5] ?? ''] ?? 'new', maintenance_agency: agency, language };
    for (const [position, field, codes] of F008) {
      const raw = f008[position];
      const value = raw === undefined ? undefined : codes[raw === ' ' ? '#' : raw];
      if (value && this.s.enums.get(field)?.values.includes(value)) out[field] = value;
    }
    if (out.language && !this.s.enums.get('language_iso639_2')?.values.includes(out.language)) delete out.language;
    return out;
  }

  /** A 046 (or the $s $t of another field): begin from $f $q $s, end from $g $r $t; standardized where a date parses. */
  private dates(f: XmlNode, label: 'existence' | 'dates' = 'existence'): Obj[] {
    const last = (codes: string) => this.sub(f, codes).pop();
    const std = (v: string | undefined) => {
      const m = v && (/^(\d{4})(\d{2})(\d{2})$/.exec(v) ?? /^(\d{4})-(\d{2})-(\d{2})$/.exec(v));
      return m ? `${m[1]}-${m[2]}-${m[3]}` : v && /^\d{4}$/.test(v) ? v : undefined;
    };
    const [begin, end] = label === 'dates' ? [last('s'), last('t')] : [last('fqs'), last('grt')];
    if (!begin && !end) return [];
    // ArchivesSpace labels these "existence" wherever they come from.
    const date_label = 'existence';
    if (begin && end) {
      return [{ date_label, date_type_structured: 'range', structured_date_range: {
        begin_date_expression: begin, begin_date_standardized: std(begin), end_date_expression: end, end_date_standardized: std(end) } }];
    }
    return [{ date_label, date_type_structured: 'single', structured_date_single: {
      date_role: begin ? 'begin' : 'end', date_expression: begin ?? end, date_standardized: std(begin ?? end) } }];
  }

  /** 500/510/511: the agents they name (matched by heading, else created), related as $w says. */
  private async related(fields: XmlNode[], heading: XmlNode): Promise<Obj[]> {
    const out: Obj[] = [];
    for (const f of fields) {
      const kind: Kind = f.attrs.tag !== '500' ? 'corporate_entity' : f.attrs.ind1 === '3' ? 'family' : 'person';
      const name: Obj = { ...this.name(kind, f, []), authorized: true, source: this.value('name_source', 'ingest') };
      const label = [name.primary_name ?? name.family_name, name.rest_of_name, name.dates].filter(Boolean).join(', ');
      if (!label) continue;
      const ref = await this.agent(`agent_${kind}`, label, { source: 'ingest' }, { name });
      let [relator, specific, type] = RELATIONS[(this.sub(f, 'w')[0] ?? '')[0]] ?? ['is_associative_with', undefined, 'agent_relationship_associative'];
      if ((this.sub(f, 'w')[0] ?? '')[0] === 't' && kind === 'corporate_entity' && heading.attrs.tag === '110') {
        [relator, specific, type] = ['is_superior_of', 'Immediate parent body', 'agent_relationship_subordinatesuperior'];
      }
      out.push({
        jsonmodel_type: type, relator, ref, description: this.sub(f, 'i')[0], relationship_uri: this.sub(f, '4')[0],
        ...(specific ? { specific_relator: this.value('agent_relationship_specific_relator', specific) } : {}),
      });
    }
    return out;
  }

  /** import_subjects: topics or functions (372), occupations (374) and places (370), each linking a subject. */
  private async subjectLinks(body: Obj, kind: Kind, fields: (...tags: string[]) => XmlNode[]): Promise<void> {
    const subjectOf = async (f: XmlNode, node: XmlNode, termType: string) => {
      const authority = kids(f, 'subfield').find((x) => x.attrs.code !== '0' && x.attrs.code !== '2') === node ? this.sub(f, '0')[0] : undefined;
      return { ref: await this.subject(termType, textOf(node), { source: this.sub(f, '2')[0] ?? 'Source not specified', authfilenumber: authority }) };
    };
    const each = async (tag: string, codes: string, make: (f: XmlNode, s: XmlNode) => Promise<Obj>) => {
      const out: Obj[] = [];
      for (const f of fields(tag)) for (const s of kids(f, 'subfield').filter((x) => codes.includes(x.attrs.code ?? ''))) out.push(await make(f, s));
      return out;
    };
    const topics = await each('372', 'a', async (f, s) => ({ subjects: [await subjectOf(f, s, kind === 'person' ? 'topical' : 'function')], dates: this.dates(f, 'dates') }));
    if (kind === 'person') body.agent_topics = topics;
    else body.agent_functions = topics;
    body.agent_occupations = await each('374', 'a', async (f, s) => ({ subjects: [await subjectOf(f, s, 'occupation')], dates: this.dates(f, 'dates') }));
    body.agent_places = await each('370', 'abcef', async (f, s) => ({
      place_role: this.value('place_role', PLACES[s.attrs.code!]), subjects: [await subjectOf(f, s, 'geographic')], dates: this.dates(f, 'dates'),
    }));
  }

  result(): ImportReport {
    if (!this.records) throw new ImportFailed(`${this.input.name}: no MARC record in the file`);
    if (!this.written) throw new ImportFailed(`${this.input.name}: no record of the file is a name authority (100, 110 or 111): nothing to import`);
    return this.report;
  }
}

/** ArchivesSpace's job sends its import options as "1". */
const chosen = (v: unknown) => v === true || v === '1' || v === 'true';

export const marcxmlAuthAgentImporter: Importer = {
  type: 'marcxml_auth_agent',
  label: 'Import agent records from a MARCXML authority file',
  async run(s, repoId, actor, input, out) {
    return importFile(s, out, async (writer) => {
      const job = new MarcAuthImport(s, writer, repoId, actor, input, out);
      job.options = { events: chosen(input.options?.import_events), subjects: chosen(input.options?.import_subjects) };
      await readBlocks(input.path, input.name, job, out.signal);
      return job.result();
    });
  },
};
