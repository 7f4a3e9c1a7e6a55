import type { ReactNode } from 'react';

/** The frame of the signed-out pages: one narrow card, centred, readable at 320 px. */
export function SignInFrame(props: { title: string; children: ReactNode }) {
  return (
    <main id="main" className="flex min-h-screen items-start justify-center bg-neutral-50 px-3 py-10 sm:items-center">
      <div className="w-full max-w-sm rounded-lg border border-neutral-200 bg-white p-6 shadow-sm">
        <p className="text-sm font-bold text-neutral-950">
          Open Verify <span className="font-normal text-neutral-700">admin</span>
        </p>
        <h1 className="mb-5 mt-1 text-xl font-bold text-neutral-950">{props.title}</h1>
        {props.children}
      </div>
    </main>
  );
}
