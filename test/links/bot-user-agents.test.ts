// Which clicks count: fetchers and previews do not, people's browsers (in-app ones too) do.
import { describe, expect, it } from 'vitest';
import { isBotUserAgent } from '../../src/links/bot-user-agents.js';

describe('isBotUserAgent', () => {
  it('flags fetchers the old substring list missed: Node fetch, httpx, aiohttp, AI agents, unfurlers', () => {
    for (const ua of [
      'node',
      'python-httpx/0.27.0',
      'Python/3.12 aiohttp/3.9.5',
      'Mozilla/5.0 (compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
      'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
      'Iframely/1.3.1 (+https://iframely.com/docs/about)',
    ]) {
      expect({ ua, bot: isBotUserAgent(ua) }).toEqual({ ua, bot: true });
    }
  });

  it('flags the usual crawlers, previews and libraries, and a missing user agent', () => {
    for (const ua of [
      'Mozilla/5.0 (compatible; Googlebot/2.1)',
      'facebookexternalhit/1.1',
      'Slackbot-LinkExpanding 1.0',
      'kakaotalk-scrap/1.0',
      'Mozilla/5.0 (compatible; Yeti/1.1; +https://naver.me/spd)',
      'curl/8.5.0',
      'UptimeRobot/2.0',
      'Mozilla/5.0 (compatible; GPTBot/1.1)',
    ]) {
      expect({ ua, bot: isBotUserAgent(ua) }).toEqual({ ua, bot: true });
    }
    expect(isBotUserAgent(undefined)).toBe(true);
  });

  it('counts browsers and in-app browsers, also one that says "Monitor"', () => {
    for (const ua of [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 KAKAOTALK 10.8.0',
      'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36 NAVER(inapp; search; 2000; 12.10.6)',
      'Mozilla/5.0 (Linux; Android 14; SM-S921N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36 Monitor',
    ]) {
      expect({ ua, bot: isBotUserAgent(ua) }).toEqual({ ua, bot: false });
    }
  });
});
