/** A GET form choosing the workspace a page shows (works without JavaScript; the URL keeps the choice). */
import type { Membership } from '@/lib/domain/admin/access';
import { Button, Label, Select } from './ui';

export function WorkspacePicker(props: {
  workspaces: Membership[];
  current: string | null;
  hidden?: Record<string, string>;
  counts?: Map<string, number>;
}) {
  if (props.workspaces.length <= 1) return null;
  return (
    <form method="get" className="flex flex-wrap items-end gap-2">
      {Object.entries(props.hidden ?? {}).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <div>
        <Label htmlFor="workspace">Workspace</Label>
        <Select id="workspace" name="workspace" defaultValue={props.current ?? ''}>
          <option value="">All workspaces</option>
          {props.workspaces.map((w) => (
            <option key={w.workspaceId} value={w.workspaceId}>
              {w.workspaceName}
              {props.counts ? ` (${props.counts.get(w.workspaceId) ?? 0})` : ''}
            </option>
          ))}
        </Select>
      </div>
      <Button type="submit" variant="secondary">
        Show
      </Button>
    </form>
  );
}
