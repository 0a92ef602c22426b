// The core's learned turn classifier (crates/sidenote-core/src/classifier.rs) in plain
// TypeScript: same weights file, same features, same FNV-1a hash, same f32 arithmetic, so the
// logits agree bit for bit. It is the Rust classifier's test oracle; the service never uses it
// to serve. Input is already normalised (`normalize` in reference-matcher.ts or the core's).
import { readFileSync } from 'node:fs';

const MAGIC = 'SNTC';
const FORMAT_VERSION = 1;
const HEADS = 2;
const HEADER_LEN = 4 + 2 + 2 + 4 + HEADS * 12 + 4;

const KIND_CHAR_GRAM = 0x01;
const KIND_WORD = 0x02;
const KIND_WORD_PAIR = 0x03;
/** Word-boundary marker inside character n-grams, and the joiner of a word pair. */
const BOUNDARY = 0x20;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

// From testkit/matching-reference/ the repo root is ../../.
const WEIGHTS_URL = new URL('../../crates/sidenote-core/src/model/turn-classifier.bin', import.meta.url);

interface Head {
  bias: number;
  scale: number;
  /** A logit. */
  threshold: number;
}

interface TurnClassifier {
  mask: number;
  heads: [Head, Head];
  /** `[sensitive, commercial]` per bucket, interleaved. */
  weights: Int8Array;
}

/** Logits: sigmoid gives the probability. */
export interface TurnScores {
  sensitive: number;
  commercial: number;
}

function fnvByte(hash: number, byte: number): number {
  return Math.imul(hash ^ byte, FNV_PRIME) >>> 0;
}

function fnvBytes(hash: number, bytes: Uint8Array): number {
  for (const b of bytes) hash = fnvByte(hash, b);
  return hash;
}

/** Hashes the UTF-8 encoding of one code point. */
function fnvCodePoint(hash: number, cp: number): number {
  if (cp < 0x80) return fnvByte(hash, cp);
  if (cp < 0x800) return fnvByte(fnvByte(hash, 0xc0 | (cp >> 6)), 0x80 | (cp & 0x3f));
  if (cp < 0x10000) {
    hash = fnvByte(hash, 0xe0 | (cp >> 12));
    return fnvByte(fnvByte(hash, 0x80 | ((cp >> 6) & 0x3f)), 0x80 | (cp & 0x3f));
  }
  hash = fnvByte(fnvByte(hash, 0xf0 | (cp >> 18)), 0x80 | ((cp >> 12) & 0x3f));
  return fnvByte(fnvByte(hash, 0x80 | ((cp >> 6) & 0x3f)), 0x80 | (cp & 0x3f));
}

function fnvString(hash: number, s: string): number {
  for (const c of s) hash = fnvCodePoint(hash, c.codePointAt(0)!);
  return hash;
}

/** ASCII white space (as Rust's `is_ascii_whitespace`: no vertical tab) and ASCII punctuation. */
function isSeparator(cp: number): boolean {
  if (cp === 0x20 || cp === 0x09 || cp === 0x0a || cp === 0x0c || cp === 0x0d) return true;
  return (cp >= 0x21 && cp <= 0x2f) || (cp >= 0x3a && cp <= 0x40) || (cp >= 0x5b && cp <= 0x60) || (cp >= 0x7b && cp <= 0x7e);
}

function words(normalized: string): number[][] {
  const out: number[][] = [];
  let word: number[] = [];
  for (const c of normalized) {
    const cp = c.codePointAt(0)!;
    if (isSeparator(cp)) {
      if (word.length > 0) out.push(word);
      word = [];
    } else {
      word.push(cp);
    }
  }
  if (word.length > 0) out.push(word);
  return out;
}

/** Calls `emit` with the bucket of every feature, repeats included, in the core's order. */
function forEachBucket(normalized: string, mask: number, emit: (bucket: number) => void): void {
  let previous: number[] | undefined;
  for (const word of words(normalized)) {
    // Boundary, the word's code points, boundary: grams start at the leading boundary and at
    // each code point. 1-grams of non-ASCII only, 2- and 3-grams always, 4-grams all-ASCII only.
    const units: (number | undefined)[] = [undefined, ...word, undefined];
    for (let start = 0; start < units.length - 1; start++) {
      let hash = fnvByte(FNV_OFFSET, KIND_CHAR_GRAM);
      let asciiOnly = true;
      for (let n = 1; n <= 4 && start + n <= units.length; n++) {
        const unit = units[start + n - 1];
        if (unit === undefined) {
          hash = fnvByte(hash, BOUNDARY);
        } else {
          hash = fnvCodePoint(hash, unit);
          asciiOnly &&= unit < 0x80;
        }
        if ((n === 1 && !asciiOnly) || n === 2 || n === 3 || (n === 4 && asciiOnly)) emit((hash & mask) >>> 0);
      }
    }
    const text = String.fromCodePoint(...word);
    emit((fnvString(fnvByte(FNV_OFFSET, KIND_WORD), text) & mask) >>> 0);
    if (previous !== undefined) {
      const pair = fnvByte(fnvString(fnvByte(FNV_OFFSET, KIND_WORD_PAIR), String.fromCodePoint(...previous)), BOUNDARY);
      emit((fnvString(pair, text) & mask) >>> 0);
    }
    previous = word;
  }
}

function parse(bytes: Uint8Array): TurnClassifier {
  if (bytes.length < HEADER_LEN) throw new Error('turn classifier weights: shorter than the header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== MAGIC) throw new Error('turn classifier weights: not an SNTC file');
  const version = view.getUint16(4, true);
  if (version !== FORMAT_VERSION) throw new Error(`turn classifier weights: format version ${version} is not supported`);
  if (view.getUint16(6, true) !== HEADS) throw new Error('turn classifier weights: wrong head count');
  const bucketBits = view.getUint32(8, true);
  if (bucketBits < 8 || bucketBits > 24) throw new Error(`turn classifier weights: bucket_bits ${bucketBits} out of range`);
  const head = (i: number): Head => ({
    bias: view.getFloat32(12 + i * 12, true),
    scale: view.getFloat32(16 + i * 12, true),
    threshold: view.getFloat32(20 + i * 12, true),
  });
  const body = bytes.subarray(HEADER_LEN);
  if (body.length !== (1 << bucketBits) * HEADS) throw new Error('turn classifier weights: wrong length');
  if (fnvBytes(FNV_OFFSET, body) !== view.getUint32(HEADER_LEN - 4, true)) throw new Error('turn classifier weights: checksum mismatch');
  return {
    mask: (1 << bucketBits) - 1,
    heads: [head(0), head(1)],
    weights: new Int8Array(body.buffer, body.byteOffset, body.byteLength),
  };
}

let loaded: TurnClassifier | undefined;

function classifier(): TurnClassifier {
  loaded ??= parse(readFileSync(WEIGHTS_URL));
  return loaded;
}

/** Both heads' logits, computed in f32 exactly as the core does. */
export function turnScores(normalized: string): TurnScores {
  const { mask, heads, weights } = classifier();
  const sums = [0, 0];
  let count = 0;
  forEachBucket(normalized, mask, (bucket) => {
    sums[0] += weights[2 * bucket];
    sums[1] += weights[2 * bucket + 1];
    count++;
  });
  if (count === 0) return { sensitive: heads[0].bias, commercial: heads[1].bias };
  // f32 sqrt and division round like f64-then-fround (double has more than twice the bits).
  const invNorm = Math.fround(1 / Math.fround(Math.sqrt(count)));
  const logit = (head: Head, sum: number) => Math.fround(head.bias + Math.fround(head.scale * Math.fround(Math.fround(sum) * invNorm)));
  return { sensitive: logit(heads[0], sums[0]), commercial: logit(heads[1], sums[1]) };
}

/** Whether no ad may be shown beside this turn (recall-first threshold from the weights file). */
export function isSensitive(normalized: string): boolean {
  return turnScores(normalized).sensitive >= classifier().heads[0].threshold;
}

/** Whether this turn asks for something to buy, book or choose. */
export function isCommercial(normalized: string): boolean {
  return turnScores(normalized).commercial >= classifier().heads[1].threshold;
}

/** The thresholds (logits) the decisions use. */
export function turnClassifierThresholds(): TurnScores {
  const { heads } = classifier();
  return { sensitive: heads[0].threshold, commercial: heads[1].threshold };
}
