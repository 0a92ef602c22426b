// A network described entirely by its catalog entry's `link_template`, e.g.
// `https://go.example-network.com/click?pid={marker}&sub={sub_id}&url={destination}`.
// Placeholders are replaced URL-encoded, so a destination can never break out of its parameter.
import type { NetworkAdapter } from './network-adapter.js';

const PLACEHOLDERS = ['{marker}', '{sub_id}', '{destination}'];

export const template: NetworkAdapter = {
  id: 'template',
  validate({ link_template }) {
    if (!link_template) return ['link_template: required by the template adapter'];
    const problems: string[] = [];
    for (const p of PLACEHOLDERS) if (!link_template.includes(p)) problems.push(`link_template: must contain ${p}`);
    let url: URL | null = null;
    try {
      url = new URL(link_template.replaceAll(/\{(marker|sub_id|destination)\}/g, 'x'));
    } catch {
      problems.push('link_template: must be a URL');
    }
    if (url && url.protocol !== 'https:') problems.push('link_template: must be https');
    // The destination must never choose where the browser goes first.
    const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(link_template)?.[1] ?? '';
    if (url && authority.includes('{')) problems.push('link_template: placeholders may not appear in the scheme or host');
    return problems;
  },
  buildUrl(network, { decisionId, destination }) {
    return (network.linkTemplate ?? '')
      .replaceAll('{marker}', encodeURIComponent(network.partnerMarker))
      .replaceAll('{sub_id}', encodeURIComponent(decisionId))
      .replaceAll('{destination}', encodeURIComponent(destination));
  },
};
