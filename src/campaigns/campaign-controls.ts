// Campaign control as an operator reads and changes it, through the admin API or the CLI's direct
// path: pause, resume, the lifetime and daily budgets, the end date. A control overrides the
// catalog's value of each field it sets and outlives catalog imports until it is cleared; each
// change is recorded with who made it and the values before and after. Spend already made is
// never touched: a budget lowered below it leaves the campaign exhausted (BUDGET_EXHAUSTED).
import { Refusal } from '../errors/error-registry.js';
import { NotFoundError } from '../apps/app-repository.js';
import type { Notifications } from '../webhooks/notifications.js';
import type { CatalogRepository, CampaignOverrides, CampaignSettings, ControlChange, StoredControl } from '../catalog/catalog-repository.js';

/** A campaign's controllable fields in the catalog's own shape. */
export interface SettingsView {
  status: CampaignSettings['status'];
  budget: { total_micros: number; daily_micros: number };
  ends_at: string | null;
}

/** The fields a control sets, as `follow_catalog` names them. */
export const CONTROLLED_FIELDS = ['status', 'budget.total_micros', 'budget.daily_micros', 'ends_at'] as const;

/** A change as the API and the CLI take it; an absent field keeps its current override. */
export interface ControlPatch {
  status?: 'active' | 'paused';
  budget?: { total_micros?: number | null; daily_micros?: number | null };
  /** An ISO time, or null for "never ends". */
  ends_at?: string | null;
  /** Fields to follow the catalog again. */
  follow_catalog?: Array<(typeof CONTROLLED_FIELDS)[number]>;
}

export interface CampaignControlView {
  campaign_id: string;
  archived: boolean;
  effective: SettingsView;
  catalog: SettingsView;
  overrides: { status?: 'active' | 'paused'; budget?: { total_micros?: number; daily_micros?: number }; ends_at?: string | null };
  updated_at: string | null;
  changes: Array<Omit<ControlChange, 'before' | 'after'> & { before: SettingsView; after: SettingsView }>;
}

export interface ChangedBy {
  changedBy: string;
  channel: ControlChange['channel'];
}

/** Changes listed with a campaign. */
const RECENT_CHANGES = 20;

const view = (s: CampaignSettings): SettingsView => ({
  status: s.status,
  budget: { total_micros: s.budget_total_micros, daily_micros: s.budget_daily_micros },
  ends_at: s.ends_at,
});

function overridesView(o: CampaignOverrides): CampaignControlView['overrides'] {
  const out: CampaignControlView['overrides'] = {};
  if (o.status !== undefined) out.status = o.status;
  if (o.budget_total_micros !== undefined || o.budget_daily_micros !== undefined) {
    out.budget = {};
    if (o.budget_total_micros !== undefined) out.budget.total_micros = o.budget_total_micros;
    if (o.budget_daily_micros !== undefined) out.budget.daily_micros = o.budget_daily_micros;
  }
  if (o.ends_at !== undefined) out.ends_at = o.ends_at;
  return out;
}

/** The overrides after `patch`: set fields replace, `follow_catalog` ones go, the rest stay. */
export function applyPatch(current: CampaignOverrides, patch: ControlPatch): CampaignOverrides {
  const next: CampaignOverrides = { ...current };
  if (patch.status !== undefined) next.status = patch.status;
  if (patch.budget?.total_micros != null) next.budget_total_micros = patch.budget.total_micros;
  if (patch.budget?.daily_micros != null) next.budget_daily_micros = patch.budget.daily_micros;
  if (patch.ends_at !== undefined) next.ends_at = patch.ends_at === null ? null : new Date(patch.ends_at).toISOString();
  for (const field of patch.follow_catalog ?? []) {
    if (field === 'status') delete next.status;
    else if (field === 'budget.total_micros') delete next.budget_total_micros;
    else if (field === 'budget.daily_micros') delete next.budget_daily_micros;
    else delete next.ends_at;
  }
  return next;
}

export class CampaignControls {
  constructor(
    private readonly repo: CatalogRepository,
    /** Runs after a change is committed (the serving instance reloads at once). */
    private readonly onChanged: () => Promise<void> = async () => {},
    /** Where a pause or a resume is announced (signed notifications), when anywhere. */
    private readonly notifications?: Pick<Notifications, 'publish'>,
  ) {}

  async read(campaignId: string): Promise<CampaignControlView> {
    const stored = await this.repo.campaignControl(campaignId);
    if (!stored) throw new NotFoundError(`no campaign ${campaignId}`);
    return this.view(stored);
  }

  async change(campaignId: string, patch: ControlPatch, by: ChangedBy): Promise<CampaignControlView> {
    const follow = new Set(patch.follow_catalog ?? []);
    const both =
      (patch.status !== undefined && follow.has('status')) ||
      (patch.ends_at !== undefined && follow.has('ends_at')) ||
      (patch.budget?.total_micros != null && follow.has('budget.total_micros')) ||
      (patch.budget?.daily_micros != null && follow.has('budget.daily_micros'));
    if (both) {
      throw new Refusal('invalid_request', { message: 'a field is both set and returned to the catalog' }, 'a field is both set and followed');
    }
    const stored = await this.repo.replaceCampaignControl(
      campaignId,
      (current) => {
        const overrides = applyPatch(current.overrides, patch);
        const ends = overrides.ends_at;
        if (ends && current.starts_at && Date.parse(ends) <= Date.parse(current.starts_at)) {
          throw new Refusal('invalid_request', { message: 'ends_at must be after the campaign starts (starts_at)' }, 'ends_at before starts_at');
        }
        return overrides;
      },
      by,
      // A pause or a resume is announced in the change's own transaction (the outbox): both
      // commit, or neither.
      async (tx, change) => {
        if (!this.notifications || change.before.status === change.after.status) return;
        const type = change.after.status === 'paused' ? 'campaign.paused' : 'campaign.resumed';
        const data = { campaign_id: campaignId, status: change.after.status, changed_by: change.changed_by, changed_at: change.changed_at };
        await this.notifications.publish(type, `${campaignId}:${change.changed_at}`, data, tx);
      },
    );
    if (!stored) throw new NotFoundError(`no campaign ${campaignId}`);
    await this.onChanged();
    return this.view(stored);
  }

  private async view(stored: StoredControl): Promise<CampaignControlView> {
    const changes = await this.repo.campaignControlChanges(stored.campaign_id, RECENT_CHANGES);
    return {
      campaign_id: stored.campaign_id,
      archived: stored.archived,
      effective: view(stored.effective),
      catalog: view(stored.catalog),
      overrides: overridesView(stored.overrides),
      updated_at: stored.updated_at,
      changes: changes.map((c) => ({ ...c, before: view(c.before), after: view(c.after) })),
    };
  }
}
