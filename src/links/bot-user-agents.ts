// Link-preview bots and crawlers: they still get the redirect, but their clicks are not
// counted. Substring match on the lower-cased User-Agent.
const BOT_MARKERS = [
  'bot', 'crawler', 'spider', 'slurp', 'facebookexternalhit', 'facebot', 'embedly', 'quora link preview',
  'whatsapp', 'skypeuripreview', 'vkshare', 'pinterest', 'bitlybot', 'tumblr', 'nuzzel', 'outbrain',
  'preview', 'headlesschrome', 'phantomjs', 'python-requests', 'curl/', 'wget/', 'go-http-client', 'okhttp',
  'java/', 'libwww', 'httpclient', 'scrapy', 'axios/', 'node-fetch', 'undici', 'lighthouse', 'pingdom',
  'uptimerobot', 'monitor', 'validator', 'kakaotalk-scrap', 'daumoa', 'yeti/',
];

export function isBotUserAgent(userAgent: string | undefined): boolean {
  if (!userAgent) return true; // browsers always send one
  const ua = userAgent.toLowerCase();
  return BOT_MARKERS.some((m) => ua.includes(m));
}
