/**
 * MARC 21 facts shared by the bibliographic (resource) and authority (agent) exports, as data.
 * Codes from the MARC 21 formats (loc.gov/marc); which record field goes where follows
 * ArchivesSpace's MARC exporter so records look alike in catalogues fed by either.
 */

/** Subject source → second indicator of 6XX fields (7: the source is named in $2). */
export const SOURCE_IND2: Record<string, string> = {
  naf: '0', lcsh: '0', lcnaf: '0', lcshac: '1', mesh: '2', nal: '3', cash: '5', rvm: '6',
};
export const sourceInd2 = (source: string | undefined): string => (source ? SOURCE_IND2[source] ?? '7' : '4');

/** First term of a subject → its 6XX field. */
export const SUBJECT_TAG: Record<string, string> = {
  uniform_title: '630', temporal: '648', topical: '650', geographic: '651', cultural_context: '651',
  genre_form: '655', style_period: '655', occupation: '656', function: '656',
};

/** Further terms of a subject (or agent-as-subject) → subdivision subfield. */
export const TERM_SUBFIELD: Record<string, string> = {
  uniform_title: 't', genre_form: 'v', style_period: 'v', topical: 'x', cultural_context: 'x', temporal: 'y', geographic: 'z',
};

export interface NoteField {
  tag: string;
  ind1?: string;
  code: string;
  /** Text put before the note's own ("Dimensions: ..."). */
  prefix?: string;
  /** The first indicator says whether the note is public (1) or private (0). */
  privacyIndicator?: boolean;
}

/** Note type → MARC note field. Bibliographies go to 581 one item each (see the exporter). */
export const NOTE_FIELDS: Record<string, NoteField> = {
  arrangement: { tag: '351', code: 'a' },
  fileplan: { tag: '351', code: 'a' },
  odd: { tag: '500', code: 'a' },
  dimensions: { tag: '500', code: 'a', prefix: 'Dimensions' },
  physdesc: { tag: '500', code: 'a', prefix: 'Physical Description note' },
  materialspec: { tag: '500', code: 'a', prefix: 'Material Specific Details' },
  physloc: { tag: '500', code: 'a', prefix: 'Location of resource' },
  phystech: { tag: '500', code: 'a', prefix: 'Physical Characteristics / Technical Requirements' },
  physfacet: { tag: '500', code: 'a', prefix: 'Physical Facet' },
  processinfo: { tag: '500', code: 'a', prefix: 'Processing Information' },
  separatedmaterial: { tag: '500', code: 'a', prefix: 'Materials Separated from the Resource' },
  accessrestrict: { tag: '506', code: 'a' },
  scopecontent: { tag: '520', ind1: '2', code: 'a' },
  abstract: { tag: '520', ind1: '3', code: 'a' },
  prefercite: { tag: '524', code: 'a' },
  acqinfo: { tag: '541', code: 'a', privacyIndicator: true },
  relatedmaterial: { tag: '544', code: 'd' },
  bioghist: { tag: '545', code: 'a' },
  custodhist: { tag: '561', code: 'a', privacyIndicator: true },
  appraisal: { tag: '583', code: 'a', privacyIndicator: true },
  accruals: { tag: '584', code: 'a' },
  altformavail: { tag: '535', ind1: '2', code: 'a' },
  originalsloc: { tag: '535', ind1: '1', code: 'a' },
  userestrict: { tag: '540', code: 'a' },
  legalstatus: { tag: '540', code: 'a' },
  langmaterial: { tag: '546', code: 'a' },
  otherfindaid: { tag: '555', ind1: '0', code: 'a' },
};

/** Relator codes (MARC relators list) → their terms, for $e beside $4. */
export const RELATOR_TERMS: Record<string, string> = {
  act: 'Actor', adp: 'Adapter', anl: 'Analyst', ann: 'Annotator', app: 'Applicant', arc: 'Architect', arr: 'Arranger',
  art: 'Artist', asg: 'Assignee', asn: 'Associated name', att: 'Attributed name', auc: 'Auctioneer', aud: 'Author of dialog',
  aui: 'Author of introduction', aus: 'Screenwriter', aut: 'Author', bnd: 'Binder', bkp: 'Book producer', bsl: 'Bookseller',
  ccp: 'Conceptor', chr: 'Choreographer', clb: 'Collaborator', cli: 'Client', cll: 'Calligrapher', clt: 'Collotyper',
  cmm: 'Commentator', cmp: 'Composer', cmt: 'Compositor', cnd: 'Conductor', cns: 'Censor', col: 'Collector',
  com: 'Compiler', cor: 'Collection registrar', cos: 'Contestant', cot: 'Contestee', cpc: 'Copyright claimant',
  cph: 'Copyright holder', cre: 'Creator', crp: 'Correspondent', csl: 'Consultant', ctb: 'Contributor', ctg: 'Cartographer',
  cur: 'Curator', dnr: 'Donor', dpc: 'Depicted', drt: 'Director', dsr: 'Designer', dte: 'Dedicatee', dto: 'Dedicator',
  dub: 'Dubious author', edt: 'Editor', egr: 'Engraver', etr: 'Etcher', exp: 'Expert', fmo: 'Former owner',
  fnd: 'Funder', hnr: 'Honoree', ill: 'Illustrator', ilu: 'Illuminator', ins: 'Inscriber', inv: 'Inventor',
  itr: 'Instrumentalist', ive: 'Interviewee', ivr: 'Interviewer', lbt: 'Librettist', lse: 'Licensee', lso: 'Licensor',
  ltg: 'Lithographer', lyr: 'Lyricist', mus: 'Musician', nrt: 'Narrator', orm: 'Organizer', oth: 'Other',
  own: 'Owner', pat: 'Patron', pbl: 'Publisher', pht: 'Photographer', ppm: 'Papermaker', prf: 'Performer',
  prg: 'Programmer', pro: 'Producer', prt: 'Printer', pta: 'Patent applicant', pte: 'Plaintiff-appellee',
  rcp: 'Addressee', red: 'Redaktor', rev: 'Reviewer', rpt: 'Reporter', scl: 'Sculptor', scr: 'Scribe',
  sgn: 'Signer', sng: 'Singer', spk: 'Speaker', spn: 'Sponsor', srv: 'Surveyor', stl: 'Storyteller',
  trl: 'Translator', tyd: 'Type designer', tyg: 'Typographer', vdg: 'Videographer', wam: 'Writer of accompanying material',
};

/** ISO 3166-1 country → MARC country code (008/15-17), as ArchivesSpace maps them. */
export const MARC_COUNTRY: Record<string, string> = Object.fromEntries(
  ('AE ts AF af AG aq AI ag AL aa AM ai AO ao AQ ay AR ag AS as AT au AU at AW aw AX xx AZ aj BA bn BB bb BD bg BE be BF xx ' +
    'BG bu BH ba BI bd BJ dm BL sc BM bm BN bx BO bo BQ xx BR bl BS bf BT bt BV bv BW bs BY bw BZ bh CA xxc CC xb CD cg ' +
    'CF cx CG cf CH sz CI iv CK cw CL cl CM cm CN cc CO ck CR cr CU cu CV cv CW co CX xa CY cy CZ xr DE gw DJ ft DK dk ' +
    'DM dq DO dr DZ ae EC ec EE er EG ua EH ss ER ea ES sp ET et FI fi FJ fj FK fk FM fm FO fa FR fr GA go GB xxk GD gd ' +
    'GE gs GF gv GG gg GH gh GI gi GL gl GM gm GN gv GP gp GQ eg GR gr GS xs GT gt GU gu GW pg GY gy HK xx HM hm HN ho ' +
    'HR ci HT ht HU hu ID io IE ie IL is IM im IN ii IO bi IQ iq IR ir IS ic IT it JE je JM jm JO jo JP ja KE ke KG kg ' +
    'KH cb KI gb KM cq KN xd KP kn KR ko KW ku KY cj KZ kz LA xx LB le LC xk LI lh LK ce LR lb LS lo LT li LU lu LV lv ' +
    'LY ly MA mr MC mc MD mv ME mo MF st MG mg MH xe MK xn ML ml MM br MN mp MO xx MP nw MQ mq MR mu MS mj MT mm MU mf ' +
    'MV xc MW mw MX mx MY my MZ mz NA sx NC nl NE ng NF nx NG nr NI nq NL ne NO no NP np NR nu NU xh NZ nz OM mk PA pn ' +
    'PE pe PF fp PG pp PH ph PK pk PL pl PM xl PN pc PR pr PS xx PT po PW pw PY py QA qa RE re RO rm RS rb RU ru RW rw ' +
    'SA su SB bp SC se SD sj SE sw SG si SH xj SI xv SJ xx SK xo SL si SM sm SN sg SO so SR sr SS sd ST sf SV es SX sn ' +
    'SY sy SZ xx TC tc TD cd TF xx TG tg TH th TJ ta TK tl TL em TM tk TN ti TO to TR tu TT tr TV tv TW xx TZ tz UA un ' +
    'UG ug UM xxu US xxu UY uy UZ uz VA vc VC xm VE ve VG vb VI vi VN vm VU nn WF wf WS ws YE ye YT ot ZA sa ZM za ZW rh')
    .split(' ').reduce<Array<[string, string]>>((pairs, word, i, all) => (i % 2 ? pairs : [...pairs, [word, all[i + 1]]]), []),
);

export const MARC_NS = 'http://www.loc.gov/MARC21/slim';
export const MARC_SCHEMA_LOCATION = `${MARC_NS} https://www.loc.gov/standards/marcxml/schema/MARC21slim.xsd`;
