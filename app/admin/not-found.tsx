import { TextLink } from '@/components/admin/ui';

export default function AdminNotFound() {
  return (
    <main id="main" className="mx-auto max-w-xl px-4 py-16">
      <h1 className="text-xl font-bold text-neutral-950">Not found</h1>
      <p className="mt-2 text-sm text-neutral-800">There is nothing here, or nothing you have access to.</p>
      <p className="mt-4">
        <TextLink href="/admin/queue">Back to the review queue</TextLink>
      </p>
    </main>
  );
}
