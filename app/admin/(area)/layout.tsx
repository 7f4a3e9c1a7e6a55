/** The signed-in admin area's frame. Each page checks the session itself too (layouts are not re-run on every navigation). */
import { requireSession } from '@/app/admin/_auth/current';
import { Shell } from '@/components/admin/Shell';
import { signOutAction } from '../auth-actions';

export default async function AreaLayout({ children }: { children: React.ReactNode }) {
  const s = await requireSession({ allowEnrol: true });
  return (
    <Shell actor={s.actor} signOut={signOutAction} enrolling={s.stage === 'enrol'}>
      {children}
    </Shell>
  );
}
