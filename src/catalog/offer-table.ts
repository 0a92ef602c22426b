// The serving view's per-offer data in shared memory: written once by the catalog loader's
// worker (catalog-load.ts), read by the serving thread without a copy. A million offers are
// about 170 MB of bytes outside the V8 heap, not millions of JS objects: nothing to deserialize
// when a catalog goes live, nothing for the garbage collector to mark while serving.
//
// Offers sit at their position in the offer index built from the same rows (the index's compact
// match results name offers by that position), in chunks of OFFERS_PER_CHUNK; a hash table finds
// an offer by snapshot id.
import type { IndexIds, OfferIds, TaxonomyIds } from '../native/offer-index.js';
import type { SnapshotContent } from './catalog-import-plan.js';
import type { Offer } from './catalog-schema.js';

export const OFFERS_PER_CHUNK = 2048;

/** Per offer in a chunk's `fields`: where its three strings end in `bytes` (snapshot id, offer id,
 *  what is served), then its campaign's and advertiser's index in the table's id lists, then its
 *  flags. */
const FIELDS = 6;
const SNAPSHOT_END = 0;
const OFFER_END = 1;
const SERVED_END = 2;
const CAMPAIGN = 3;
const ADVERTISER = 4;
const FLAGS = 5;

/** Flag: an affiliate offer whose network can build its link (src/catalog/serving-catalog.ts). */
export const AFFILIATE_READY = 1;

/** What serving needs of a snapshot: the offer as shown, and the advertiser shown beside it. Its
 *  targeting is the offer index's, and not kept here. */
export interface ServedSnapshot {
  offer: Omit<Offer, 'targeting'>;
  advertiser_id: string;
  advertiser_name: string;
}

/** A snapshot's served fields as a JSON array, trailing nulls left out: no keys, no ids (the
 *  table has those), no targeting. About 110 bytes for a typical offer, against 440 for its stored
 *  content; a million offers' worth decides whether an instance fits in a gigabyte. */
export function encodeServed(content: SnapshotContent): string {
  const o = content.offer;
  const fields = [o.kind, o.locale, o.title, o.destination_url, content.advertiser_name, o.network_id, o.description, o.image_url, o.cta, o.disclosure];
  while (fields.length > 0 && fields[fields.length - 1] == null) fields.pop();
  return JSON.stringify(fields);
}

type ServedFields = [Offer['kind'], Offer['locale'], string, string, string, ...(string | null | undefined)[]];

/** A list of strings in shared memory. */
export interface SharedStringsParts {
  bytes: SharedArrayBuffer;
  /** Uint32 end offset of each string in `bytes`. */
  ends: SharedArrayBuffer;
}

export function shareStrings(list: readonly string[]): SharedStringsParts {
  let size = 0;
  for (const s of list) size += Buffer.byteLength(s);
  const bytes = Buffer.from(new SharedArrayBuffer(size));
  const ends = new Uint32Array(new SharedArrayBuffer(4 * list.length));
  let at = 0;
  list.forEach((s, i) => {
    at += bytes.write(s, at);
    ends[i] = at;
  });
  return { bytes: bytes.buffer as SharedArrayBuffer, ends: ends.buffer as SharedArrayBuffer };
}

export class SharedStrings {
  private readonly bytes: Buffer;
  private readonly ends: Uint32Array;

  constructor(parts: SharedStringsParts) {
    this.bytes = Buffer.from(parts.bytes);
    this.ends = new Uint32Array(parts.ends);
  }

  get size(): number {
    return this.ends.length;
  }

  get(i: number): string {
    return this.bytes.toString('utf8', i === 0 ? 0 : this.ends[i - 1], this.ends[i]);
  }
}

export interface OfferChunkParts {
  bytes: SharedArrayBuffer;
  fields: SharedArrayBuffer;
}

/** The serving view's offers, as the worker hands them over. */
export interface OfferTableParts {
  chunks: OfferChunkParts[];
  campaignIds: SharedStringsParts;
  advertiserIds: SharedStringsParts;
  /** Open addressing, two Int32 per slot: position + 1 (0: empty) and the id's hash. */
  lookup: SharedArrayBuffer;
  /** The ids the index's compact results name by position, from the index's builder. */
  categories: SharedStringsParts;
  entities: SharedStringsParts;
  sensitiveTopics: SharedStringsParts;
}

/** What one offer of the table holds. */
export interface OfferRecord {
  snapshotId: string;
  offerId: string;
  campaignIndex: number;
  advertiserIndex: number;
  /** encodeServed of its snapshot. */
  served: string;
  flags: number;
}

// FNV-1a over UTF-16 code units: the same on both threads, and ids are ASCII.
function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** The worker's side: offers in, chunks out as they fill, the lookup at the end. */
export class OfferTableWriter {
  private pending: OfferRecord[] = [];
  private readonly hashes: number[] = [];
  readonly chunks: OfferChunkParts[] = [];

  /** Adds the next offer; returns a chunk when this one filled it (to send on at once). */
  add(offer: OfferRecord): OfferChunkParts | null {
    this.hashes.push(hashId(offer.snapshotId));
    this.pending.push(offer);
    return this.pending.length === OFFERS_PER_CHUNK ? this.seal() : null;
  }

  get size(): number {
    return this.hashes.length;
  }

  /** The last, partly filled chunk (null when there is none) and the lookup over every offer. */
  finish(): { last: OfferChunkParts | null; lookup: SharedArrayBuffer } {
    const last = this.pending.length > 0 ? this.seal() : null;
    // At most half full: a miss ends after a probe or two.
    let slots = 1;
    while (slots < 2 * this.hashes.length) slots *= 2;
    const lookup = new Int32Array(new SharedArrayBuffer(8 * slots));
    this.hashes.forEach((h, position) => {
      let slot = h & (slots - 1);
      while (lookup[2 * slot] !== 0) slot = (slot + 1) & (slots - 1);
      lookup[2 * slot] = position + 1;
      lookup[2 * slot + 1] = h;
    });
    return { last, lookup: lookup.buffer as SharedArrayBuffer };
  }

  private seal(): OfferChunkParts {
    const offers = this.pending;
    this.pending = [];
    let size = 0;
    for (const o of offers) size += Buffer.byteLength(o.snapshotId) + Buffer.byteLength(o.offerId) + Buffer.byteLength(o.served);
    const bytes = Buffer.from(new SharedArrayBuffer(size));
    const fields = new Uint32Array(new SharedArrayBuffer(4 * FIELDS * offers.length));
    let at = 0;
    offers.forEach((o, i) => {
      const f = FIELDS * i;
      at += bytes.write(o.snapshotId, at);
      fields[f + SNAPSHOT_END] = at;
      at += bytes.write(o.offerId, at);
      fields[f + OFFER_END] = at;
      at += bytes.write(o.served, at);
      fields[f + SERVED_END] = at;
      fields[f + CAMPAIGN] = o.campaignIndex;
      fields[f + ADVERTISER] = o.advertiserIndex;
      fields[f + FLAGS] = o.flags;
    });
    const chunk = { bytes: bytes.buffer as SharedArrayBuffer, fields: fields.buffer as SharedArrayBuffer };
    this.chunks.push(chunk);
    return chunk;
  }
}

/** The serving thread's side: reads offers by position or snapshot id. Also the ids the offer
 *  index's match results are decoded with (IndexIds), so they come from the same catalog. */
export class OfferTable implements IndexIds {
  private readonly chunks: { bytes: Buffer; fields: Uint32Array }[];
  private readonly campaignIds: SharedStrings;
  private readonly advertiserIds: SharedStrings;
  private readonly lookup: Int32Array;
  private readonly categories: SharedStrings;
  private readonly entities: SharedStrings;
  private readonly sensitiveTopics: SharedStrings;
  readonly size: number;

  constructor(parts: OfferTableParts) {
    this.chunks = parts.chunks.map((c) => ({ bytes: Buffer.from(c.bytes), fields: new Uint32Array(c.fields) }));
    this.campaignIds = new SharedStrings(parts.campaignIds);
    this.advertiserIds = new SharedStrings(parts.advertiserIds);
    this.lookup = new Int32Array(parts.lookup);
    this.categories = new SharedStrings(parts.categories);
    this.entities = new SharedStrings(parts.entities);
    this.sensitiveTopics = new SharedStrings(parts.sensitiveTopics);
    this.size = this.chunks.reduce((n, c) => n + c.fields.length / FIELDS, 0);
  }

  static empty(): OfferTable {
    const none = shareStrings([]);
    return new OfferTable({
      chunks: [],
      campaignIds: none,
      advertiserIds: none,
      lookup: new SharedArrayBuffer(8),
      categories: none,
      entities: none,
      sensitiveTopics: none,
    });
  }

  /** The offer's position, or -1 when the table has no snapshot with this id. */
  positionOf(snapshotId: string): number {
    const slots = this.lookup.length / 2;
    const h = hashId(snapshotId);
    for (let slot = h & (slots - 1); ; slot = (slot + 1) & (slots - 1)) {
      const entry = this.lookup[2 * slot];
      if (entry === 0) return -1;
      if (this.lookup[2 * slot + 1] === h && this.text(entry - 1, SNAPSHOT_END) === snapshotId) return entry - 1;
    }
  }

  offer(position: number): OfferIds {
    const { fields } = this.chunkOf(position);
    const f = FIELDS * (position % OFFERS_PER_CHUNK);
    return {
      snapshotId: this.text(position, SNAPSHOT_END),
      offerId: this.text(position, OFFER_END),
      campaignId: this.campaignIds.get(fields[f + CAMPAIGN]),
      advertiserId: this.advertiserIds.get(fields[f + ADVERTISER]),
    };
  }

  snapshot(position: number): ServedSnapshot {
    const { fields } = this.chunkOf(position);
    const f = FIELDS * (position % OFFERS_PER_CHUNK);
    const [kind, locale, title, destination_url, advertiser_name, network_id, description, image_url, cta, disclosure] = JSON.parse(
      this.text(position, SERVED_END),
    ) as ServedFields;
    return {
      offer: {
        id: this.text(position, OFFER_END),
        campaign_id: this.campaignIds.get(fields[f + CAMPAIGN]),
        kind,
        network_id: network_id ?? null,
        locale,
        title,
        description: description ?? null,
        image_url: image_url ?? null,
        cta: cta ?? null,
        disclosure: disclosure ?? null,
        destination_url,
      },
      advertiser_id: this.advertiserIds.get(fields[f + ADVERTISER]),
      advertiser_name,
    };
  }

  flags(position: number): number {
    return this.chunkOf(position).fields[FIELDS * (position % OFFERS_PER_CHUNK) + FLAGS];
  }

  category(position: number): string {
    return this.categories.get(position);
  }

  entity(position: number): string {
    return this.entities.get(position);
  }

  sensitiveTopic(position: number): string {
    return this.sensitiveTopics.get(position);
  }

  private chunkOf(position: number) {
    return this.chunks[Math.floor(position / OFFERS_PER_CHUNK)];
  }

  /** One of the offer's strings: the field that ends it, which starts where the one before ends. */
  private text(position: number, field: typeof SNAPSHOT_END | typeof OFFER_END | typeof SERVED_END): string {
    const { bytes, fields } = this.chunkOf(position);
    const f = FIELDS * (position % OFFERS_PER_CHUNK);
    const start = field > 0 ? fields[f + field - 1] : f > 0 ? fields[f - FIELDS + SERVED_END] : 0;
    return bytes.toString('utf8', start, fields[f + field]);
  }
}

/** The taxonomy ids as the table carries them. */
export function shareTaxonomyIds(ids: TaxonomyIds): Pick<OfferTableParts, 'categories' | 'entities' | 'sensitiveTopics'> {
  return { categories: shareStrings(ids.categories), entities: shareStrings(ids.entities), sensitiveTopics: shareStrings(ids.sensitive_topics) };
}
