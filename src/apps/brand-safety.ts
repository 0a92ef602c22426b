// An app's brand-safety exclusions as the operator reads and sets them: what is stored, and
// which of those ids the current catalog does not know. Unknown ids are kept (an operator may
// block a category before a catalog that has it is imported) and listed, so a typo shows at once.
// The admin API and the CLI's direct path both answer with this.
import type { CatalogRepository } from '../catalog/catalog-repository.js';
import type { AppRepository, BrandSafety } from './app-repository.js';

export interface BrandSafetyView extends BrandSafety {
  app_id: string;
  not_in_catalog: { category_ids: string[]; advertiser_ids: string[] };
}

export class BrandSafetySettings {
  constructor(
    private readonly apps: AppRepository,
    private readonly catalog: CatalogRepository,
  ) {}

  async read(appId: string): Promise<BrandSafetyView> {
    return this.view(appId, await this.apps.brandSafety(appId));
  }

  /** Replaces both lists. */
  async replace(appId: string, categoryIds: readonly string[], advertiserIds: readonly string[]): Promise<BrandSafetyView> {
    return this.view(appId, await this.apps.setBrandSafety(appId, categoryIds, advertiserIds));
  }

  private async view(appId: string, stored: BrandSafety): Promise<BrandSafetyView> {
    const not_in_catalog = await this.catalog.unknownIds(stored.blocked_category_ids, stored.blocked_advertiser_ids);
    return { app_id: appId, ...stored, not_in_catalog };
  }
}
