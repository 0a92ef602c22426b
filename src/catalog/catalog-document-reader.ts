// Reads a catalog file as a stream: the offers one at a time as they are read, and the rest of
// the document (taxonomy, advertisers, campaigns, networks) assembled whole, with `offers: []` in
// place of the array. Memory grows with the rest of the document, never with the offers.
//
// stream-json's tokenizer (a synchronous function over text chunks) and its Assembler build the
// values exactly as JSON.parse would (same numbers, `__proto__` an own key); routing the tokens is
// ours. The tokenizer is fed whole chunks and handed back every token of a chunk at once, so
// there is no await per token.
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import Assembler from 'stream-json/core/assembler.js';
import { none, isMany, getManyValues } from 'stream-chain/defs.js';
import { CatalogValidationError } from './catalog-validation.js';

/** The file is not JSON. Its message is fixed: a parser's message may quote the text. */
export class NotJson extends Error {
  constructor() {
    super('not valid JSON');
    this.name = 'NotJson';
  }
}

export interface DocumentReadProgress {
  bytesRead: number;
  offersRead: number;
}

/** Reads `file`, calling `onOffers` with the offers of each chunk (in document order) and
 *  awaiting it, so a slow consumer holds the reading back. Resolves with the rest of the
 *  document. Throws NotJson for anything that is not one JSON value. */
export async function readCatalogDocument(
  file: string,
  onOffers: (offers: unknown[]) => Promise<void> | void,
  onProgress?: (p: DocumentReadProgress) => void,
): Promise<unknown> {
  const tokenize = jsonParser({ packValues: true, streamValues: false });
  const decoder = new StringDecoder('utf8');
  const router = new TokenRouter();
  let bytesRead = 0;
  let first = true;
  // `none` flushes: the tokens of a value that only the end of the text completes.
  const feed = (text: string | typeof none) => {
    let out: ReturnType<typeof tokenize>;
    try {
      out = tokenize(text as string);
    } catch {
      throw new NotJson();
    }
    if (out === none) return;
    if (isMany(out)) for (const token of getManyValues(out) as Token[]) router.token(token);
    else router.token(out as Token);
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    bytesRead += (chunk as Buffer).length;
    let text = decoder.write(chunk as Buffer);
    // A byte-order mark is not part of the JSON (JSON.parse callers strip it too).
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    first = false;
    feed(text);
    const offers = router.takeOffers();
    if (offers.length > 0) await onOffers(offers);
    onProgress?.({ bytesRead, offersRead: router.offersRead });
  }
  feed(decoder.end());
  feed(none);
  const offers = router.takeOffers();
  if (offers.length > 0) await onOffers(offers);
  if (!router.complete) throw new NotJson();
  return router.head();
}

const SCALARS = new Set(['stringValue', 'numberValue', 'nullValue', 'trueValue', 'falseValue']);

/** Sends the elements of the top-level `offers` array out one by one and everything else to
 *  one assembler. `depth` counts the containers open before the token. */
class TokenRouter {
  private readonly headAsm = new Assembler();
  private headScalar: { value: unknown } | null = null;
  private depth = 0;
  private topKey: string | null = null;
  private inOffers = false;
  private offersSeen = false;
  private offerAsm: Assembler | null = null;
  private pending: unknown[] = [];
  offersRead = 0;
  complete = false;

  token(t: Token): void {
    if (this.inOffers) {
      this.offerToken(t);
      return;
    }
    if (this.depth === 0 && SCALARS.has(t.name)) {
      // The whole document is one scalar: the schema refuses it.
      this.headScalar = { value: scalarValue(t) };
      this.complete = true;
      return;
    }
    if (this.depth === 1 && t.name === 'keyValue') this.topKey = t.value;
    else if (this.depth === 1 && this.topKey === 'offers' && t.name === 'startArray') {
      // A second `offers` key: JSON.parse would keep the last; an import refuses to guess.
      if (this.offersSeen) throw new CatalogValidationError(['offers: the key appears more than once']);
      this.offersSeen = true;
      this.inOffers = true;
      this.headAsm.consume(t);
      this.depth++;
      return;
    }
    this.headAsm.consume(t);
    if (t.name === 'startObject' || t.name === 'startArray') this.depth++;
    else if (t.name === 'endObject' || t.name === 'endArray') this.depth--;
    if (this.depth === 0 && this.headAsm.done) this.complete = true;
  }

  private offerToken(t: Token): void {
    // depth 2: between elements of the offers array.
    if (this.depth === 2) {
      if (t.name === 'endArray') {
        this.inOffers = false;
        this.headAsm.consume(t);
        this.depth--;
        return;
      }
      if (SCALARS.has(t.name)) {
        this.emit(scalarValue(t));
        return;
      }
      this.offerAsm = new Assembler();
    }
    (this.offerAsm as Assembler).consume(t);
    if (t.name === 'startObject' || t.name === 'startArray') this.depth++;
    else if (t.name === 'endObject' || t.name === 'endArray') {
      this.depth--;
      if (this.depth === 2) {
        this.emit((this.offerAsm as Assembler).current);
        this.offerAsm = null;
      }
    }
  }

  private emit(offer: unknown) {
    this.pending.push(offer);
    this.offersRead++;
  }

  takeOffers(): unknown[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  head(): unknown {
    return this.headScalar ? this.headScalar.value : this.headAsm.current;
  }
}

function scalarValue(t: Token): unknown {
  switch (t.name) {
    case 'stringValue':
      return t.value;
    case 'numberValue':
      return Number(t.value);
    case 'nullValue':
      return null;
    case 'trueValue':
      return true;
    case 'falseValue':
      return false;
    default:
      return undefined;
  }
}
