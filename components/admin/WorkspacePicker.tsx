/** A GET form choosing the workspace a page shows (works without JavaScript; the URL keeps the choice). */
import type { Membership } from '@/lib/domain/admin/access';
import { buttonClass, inputClass } from './ui';

export function WorkspacePicker(props: { workspaces: Membership[]; current: string | null; hidden?: Record<string, string>; counts?: Map<string, number> }) {
  if (props.workspaces.length <= 1) return null;
  return (
    <form method="get" className="flex flex-wrap items-end gap-2">
      {Object.entries(props.hidden ?? {}).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <div>
        <label htmlFor="workspace" className="mb-1 block text-sm font-medium text-neutral-800">
          Workspace
        </label>
        <select id="workspace" name="workspace" defaultValue={props.current ?? ''} className={`${inputClass} w-auto max-w-full`}>
          <option value="">All workspaces</option>
          {props.workspaces.map((w) => (
            <option key={w.workspaceId} value={w.workspaceId}>
              {w.workspaceName}
              {props.counts ? ` (${props.counts.get(w.workspaceId) ?? 0})` : ''}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className={buttonClass.secondary}>
        Show
      </button>
    </form>
  );
}
