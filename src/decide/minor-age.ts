// Whether a turn says the user is a minor by age or school year ("I'm 14", "8th grade",
// "freshman in high school", "중2", "고1", "15살", "열다섯 살"). The catalog's sensitive-topic
// aliases name minors by word ("teenager", "중학생"); an age or a school year is a pattern, not a
// word, so it is read here. Recall first (DESIGN.md §2): a false block costs one impression, a
// served offer beside a child is the worst outcome. Ages under 19 count (Korea's age of majority;
// the US one is 18).
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

// 살 but not the verb 사다 in any of its endings (살만해, 살려고, 살라구, 살래, 살까, 살게, 살거야,
// 살건데, 살지, 살 수, 살 거): "아이폰16 살라구" buys a phone, "16살" is an age; 세 only right after
// the number and not the start of another word (세일, 세트, 세대, 세금 …): "iPhone 16 세일" is a
// sale, not an age.
const KO_AGE =
  /(?<![0-9a-z.])(?:[5-9]|1[0-8])(?:\s*살(?!만|려|라|래|까|게|께|거|건|꺼|껀|걸|지|\s+(?:수|거|건|걸|지|까|게|만|려|라)(?![가-힣]))|세(?![일트대금상계탁련븐팅]))(?![0-9])/;
const KO_WORD_AGE = /(?:^|[^가-힣])열(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉)?\s*살/;
// 중2, 고1 written together ("이 중 2개" is not a school year).
// A school year alone ("6학년인데") is a child's: only elementary school has a fourth to a sixth, and
// a university's ("대학교 3학년", "대학 2학년") is excluded.
const KO_SCHOOL_YEAR =
  /(?:^|[^가-힣0-9])(?:초|중|고)[1-6](?![0-9])|(?:초등|중등|고등|중|고)학교\s*[1-6]\s*학년|고딩|중딩|초딩|(?<!대학교?\s*|대\s*)(?:^|[^0-9])[1-6]\s*학년/;
const EN_AGE =
  /\b(?:i'?m|i am|im|age|aged)\s+(?:only\s+|just\s+)?(?:[5-9]|1[0-8])\b(?!\s*(?:%|percent|min|mins|minutes|hours?|days?|weeks?|months?|km|miles?|dollars?|bucks|k\b|am\b|pm\b|inch|inches|cm|kg|lbs?|pounds?|points?|euros?|won))/;
// Ages in words: "I'm fifteen", "fourteen years old", "a thirteen-year-old".
const EN_WORD_AGE =
  /\b(?:i'?m|i am|im|age|aged|turning|turn)\s+(?:only\s+|just\s+)?(?:five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen)\b|\b(?:five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen)\s*(?:-\s*)?(?:years?|yrs?)\s*(?:-\s*)?old\b/;
// School years written the other way round or the British way: "grade 8 student", "in grade 9",
// "I'm in year 10".
const EN_GRADE_NUMBER = /\b(?:in|i'?m in|im in)\s+(?:grade|year)\s+(?:[1-9]|1[0-2])\b|\bgrade\s+(?:[1-9]|1[0-2])\s+(?:student|here|kid|girl|boy)s?\b/;
const EN_YEARS_OLD = /\b(?:[5-9]|1[0-8])\s*(?:-\s*)?(?:years?|yrs?|y\/?o)\s*(?:-\s*)?old\b|\b(?:[5-9]|1[0-8])\s*y\/?o\b/;
const EN_GRADE =
  /\b(?:[1-9]|1[0-2])(?:st|nd|rd|th)\s+grade(?:r|rs)?\b|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)\s+grade(?:r|rs)?\b/;
const EN_SCHOOL =
  /\b(?:freshman|sophomore|junior|senior)s?\s+(?:in|at)\s+(?:high|middle)\s+school\b|\b(?:high|middle|elementary|junior high|primary)\s+school(?:er|ers)?\s+(?:freshman|sophomore|junior|senior|student|kid)\b|\bi'?m\s+in\s+(?:high|middle|elementary|junior high|primary)\s+school\b|\bim\s+in\s+(?:high|middle|elementary)\s+school\b/;

// Things have ages too: "my laptop is 7 years old", "a 5 year old macbook" are why a turn asks
// for a new one. An "N years old" said of a word that is not a person (the word before "is",
// "'s", "are", "was"), or an "N-year-old" before a thing, is not the user's age; said of a person
// or of no one ("15 years old and …", "a 16-year-old asking …") it is.
const PERSON = new Set(
  "i im i'm he she they we you who son sons daughter daughters kid kids child children brother sister cousin nephew niece boy boys girl girls baby boyfriend girlfriend friend friends stepson stepdaughter grandson granddaughter student students teen teenager".split(
    ' ',
  ),
);
const THING =
  /^(?:laptops?|phones?|iphones?|macbooks?|computers?|pc|desktop|tablets?|ipads?|cars?|tv|headphones|earbuds|airpods|devices?|machines?|cameras?|consoles?|printers?|routers?|monitors?|speakers?|batter(?:y|ies)|models?|galaxy|samsung|apple|dell|lenovo|thinkpad|one|thing|house|apartment|building|mattress|account)\b/;
const EN_YEARS_OLD_AT = new RegExp(EN_YEARS_OLD.source, 'g');
function saysPersonYearsOld(text: string): boolean {
  for (const m of text.matchAll(EN_YEARS_OLD_AT)) {
    const before = /([a-z']+)(?:\s+(?:is|are|was|were|turned|turns)|'s)\s*$/.exec(text.slice(Math.max(0, m.index - 40), m.index).trimEnd() + ' ');
    const subject = before?.[1]?.replace(/'s$/, '');
    if (subject !== undefined && !PERSON.has(subject)) continue;
    if (THING.test(text.slice(m.index + m[0].length).trimStart())) continue;
    return true;
  }
  return false;
}

/** A turn as the sensitive patterns read it (here and in medicine-names.ts): invisible
 *  characters removed, NFKC, lower case. Computed once per decide for both. */
export function patternText(message: string | undefined): string {
  return message ? message.replace(INVISIBLE, '').normalize('NFKC').toLowerCase() : '';
}

export function saysMinorAge(message: string | undefined): boolean {
  return saysMinorAgeIn(patternText(message));
}

/** `saysMinorAge` on a turn already read by `patternText`. */
export function saysMinorAgeIn(text: string): boolean {
  if (!text) return false;
  return (
    KO_AGE.test(text) ||
    KO_WORD_AGE.test(text) ||
    KO_SCHOOL_YEAR.test(text) ||
    EN_AGE.test(text) ||
    saysPersonYearsOld(text) ||
    EN_WORD_AGE.test(text) ||
    EN_GRADE_NUMBER.test(text) ||
    EN_GRADE.test(text) ||
    EN_SCHOOL.test(text)
  );
}
