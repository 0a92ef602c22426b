// Link-preview bots, crawlers, AI fetchers and HTTP libraries: they still get the redirect, but
// their clicks are not counted. The list is isbot's, maintained upstream against real traffic
// (a hand-kept list of substrings missed Node's fetch, python-httpx, AI user agents and link
// unfurlers), minus its bare "monitor" word: browsers and in-app browsers that append it would
// lose every click, and uptime monitors are in the list by name.
import { createIsbotFromList, list } from 'isbot';

const isBot = createIsbotFromList(list.filter((pattern) => pattern !== 'monitor\\b'));

export function isBotUserAgent(userAgent: string | undefined): boolean {
  if (!userAgent) return true; // browsers always send one
  return isBot(userAgent);
}
