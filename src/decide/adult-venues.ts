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

// Veiled asks, which name no venue at all: the euphemisms people use for paid sex in both
// languages ("그런 업소", a place where "아가씨" or "여자" come out, "풍속 쪽"; a woman "for the
// night", paying a girl to come, bringing one back to the hotel). Each is a phrase whose ordinary
// sense is the sensitive one; the words alone are not (업소용 냉장고, 그런 가게, a ladies' night,
// women for the night shift). Added after a fresh held-out turn of this kind passed (relevance
// slice 34): written for the kind, with the negatives beside it in the test.
const KO_VEILED =
  /그런\s*업소|아가씨\s*(?:있는|나오는|불러|부르|부를)|여자\s*(?:나오는|있는)\s*(?:술집|가게|곳|데|바|업소)|풍속\s*(?:쪽|업소|가게)|업소\s*(?:언니|아가씨|여자)/;
const EN_VEILED =
  /\b(?:woman|women|girl|girls|lady|ladies) for the night\b(?!\s*shift)|\bladies of the night\b|\bpay(?:ing)? (?:for )?(?:a |some )?(?:woman|women|girl|girls|lady|ladies) (?:for|to)\b|\bbring(?:ing)? (?:a |some )?(?:girl|girls|woman|women|lady) back to (?:my|the|our) (?:hotel|room)\b/;

// "Happy ending" is a story's end until a place that sells massages is beside it ("'happy ending'
// spots", "a spa with happy endings", 해피엔딩 마사지). Written for a fresh dev turn of the kind
// (`se-en-199`, relevance slice 37), negatives (books, films, a spa booking) beside it in the test.
const HAPPY_ENDING =
  /\bhappy\W{0,3}endings?\W{0,3}(?:spots?|places?|parlou?rs?|shops?|joints?|salons?|massages?|spas?)\b|\b(?:massages?|spas?|parlou?rs?|salons?)\b[^.?!]{0,30}\bhappy\W{0,3}endings?\b|해피\s*엔딩\s*(?:마사지|스파|업소|가게|있는|해주는|되는)|(?:마사지|스파|업소|안마)[^.?!]{0,15}해피\s*엔딩/;

export function namesAdultVenue(message: string | undefined): boolean {
  return namesAdultVenueIn(patternText(message));
}

/** `namesAdultVenue` on a turn already read by `patternText` (minor-age.ts). */
export function namesAdultVenueIn(text: string): boolean {
  return KO_VENUE.test(text) || KO_VEILED.test(text) || EN_VEILED.test(text) || HAPPY_ENDING.test(text);
}
