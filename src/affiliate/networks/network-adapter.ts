// A travel affiliate network, as far as Sidenote needs one: build a direct tracking URL for an
// allowlisted destination, locally, with no outbound call. Adding a network is a catalog entry
// and, when its link format is not a plain template, one small adapter file in this folder.

/** A network as the serving catalog holds it. Declared here, where adapters use it, so that the
 *  catalog (which validates network entries with the adapters) depends on this folder and not
 *  the other way round. */
export interface AffiliateNetworkView {
  id: string;
  name: string;
  adapter: string;
  partnerMarker: string;
  linkTemplate: string | null;
  destinations: string[];
}

export interface DeepLinkInput {
  /** Carried in the network's sub id so its reports tie back to our decision. */
  decisionId: string;
  /** Already checked against the network's allowlist. */
  destination: string;
}

export interface NetworkAdapter {
  readonly id: string;
  /** Problems with a network's catalog entry, as field-relative messages. */
  validate(network: { partner_marker: string; link_template: string | null }): string[];
  buildUrl(network: AffiliateNetworkView, input: DeepLinkInput): string;
}
