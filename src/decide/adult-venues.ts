// Whether a turn names a Korean adult-service venue whose name begins ordinary words. The
// catalog's `adult` topic lists the venues (룸살롱, 휴게텔, 대딸방, 소프랜드 …), but a sensitive
// alias is a stem that any Hangul may follow (crates/sidenote-core/src/text_match.rs), and three
// common names begin other words: 안마방 (a massage parlour that sells sex) begins 안마방석 (a
// massage cushion) and 안마방법 (how to give a massage), 키스방 begins 키스방법 (how to kiss), and
// 립카페 ends 핸드드립카페 (a hand-drip coffee shop). So they are read here as patterns, as ages
// are (minor-age.ts), with those continuations left out. Recall first (DESIGN.md §2): a venue
// beside a hotel request is an adult moment, not a travel one.
import { patternText } from './minor-age.js';

const KO_VENUE = /안마방(?!석|법)|키스방(?!법)|(?<![드슬])립카페/;

export function namesAdultVenue(message: string | undefined): boolean {
  return namesAdultVenueIn(patternText(message));
}

/** `namesAdultVenue` on a turn already read by `patternText` (minor-age.ts). */
export function namesAdultVenueIn(text: string): boolean {
  return KO_VENUE.test(text);
}
