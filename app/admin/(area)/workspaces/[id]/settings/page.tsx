/** /admin/workspaces/{id}/settings – the workspace's settings, the CLI's schema (lib/domain/workspaces settingsPatch); every change audited before and after. */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { settingsFor } from '@/lib/domain/admin/workspaces';
import { Card } from '@/components/admin/ui';
import { SettingsForm } from '@/components/admin/OwnerForms';
import { WorkspaceHeader } from '@/components/admin/WorkspaceNav';
import { updateSettingsAction } from '../../../../workspace-actions';
import { orNotFound } from '../../../../page-guard';

export const metadata: Metadata = { title: 'Settings' };

export default async function SettingsPage(props: { params: Promise<{ id: string }> }) {
  const actor = await requireActor();
  const { id } = await props.params;
  const s = await orNotFound(settingsFor(getDb(), actor, id));
  return (
    <>
      <WorkspaceHeader
        workspace={s}
        current="settings"
        title="Settings"
        subtitle="The same settings as npm run ops -- workspace:settings. Changes apply to the next request."
      />
      <Card>
        <SettingsForm
          action={updateSettingsAction}
          workspaceId={s.id}
          initial={{
            name: s.name,
            flow: s.flow,
            check_method: s.check_method,
            age_threshold: s.age_threshold,
            duplicate_threshold: Math.round(s.duplicate_threshold * 10_000) / 10_000,
            allow_duplicates: s.allow_duplicates,
            rate_limit_per_minute: s.rate_limit_per_minute,
            media_retention_days: s.media_retention_days,
            enforce_signature: s.enforce_signature,
            allow_placeholder_signature: s.allow_placeholder_signature,
            require_request_timestamp: s.require_request_timestamp,
            require_active_liveness: s.require_active_liveness,
            estimation_fallback: s.estimation_fallback,
            wallet: s.wallet,
            embed_origins: s.embed_origins.join(', '),
          }}
        />
      </Card>
    </>
  );
}
