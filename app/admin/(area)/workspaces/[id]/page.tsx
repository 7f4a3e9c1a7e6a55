import { redirect } from 'next/navigation';

// GET /admin/workspaces/{id} – its keys first.
export default async function WorkspaceHome(props: { params: Promise<{ id: string }> }) {
  redirect(`/admin/workspaces/${encodeURIComponent((await props.params).id)}/keys`);
}
