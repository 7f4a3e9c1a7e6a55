import Link from 'next/link';

export default function AdminNotFound() {
  return (
    <main id="main" className="mx-auto max-w-xl px-4 py-16">
      <h1 className="text-xl font-bold text-neutral-950">Not found</h1>
      <p className="mt-2 text-sm text-neutral-800">There is nothing here, or nothing you have access to.</p>
      <p className="mt-4">
        <Link href="/admin/queue" className="font-medium text-blue-800 underline underline-offset-2">
          Back to the review queue
        </Link>
      </p>
    </main>
  );
}
