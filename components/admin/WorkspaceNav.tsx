/** The header of a workspace's own pages (issue 15): its name and the tabs keys, webhooks, settings, members, usage. */
import { PageHeader, Tabs, TextLink } from './ui';

export const WORKSPACE_TABS = [
  ['keys', 'API keys'],
  ['webhooks', 'Webhooks'],
  ['settings', 'Settings'],
  ['members', 'Members'],
  ['usage', 'Usage'],
] as const;

export function WorkspaceHeader(props: {
  workspace: { id: string; name: string };
  current: (typeof WORKSPACE_TABS)[number][0];
  title: string;
  subtitle?: React.ReactNode;
}) {
  return (
    <>
      <p className="mb-1 text-sm">
        <TextLink href="/admin/workspaces">Workspaces</TextLink>
        <span aria-hidden="true"> / </span>
        <span className="text-neutral-800">{props.workspace.name}</span>
      </p>
      <PageHeader title={`${props.title}: ${props.workspace.name}`} subtitle={props.subtitle} />
      <Tabs
        label="Workspace sections"
        items={WORKSPACE_TABS.map(([slug, label]) => ({
          href: `/admin/workspaces/${props.workspace.id}/${slug}`,
          label,
          current: slug === props.current,
        }))}
      />
    </>
  );
}
