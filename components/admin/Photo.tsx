'use client';
/** A case photo; a click shows it full size (the same element, so the image is not fetched again). */
import { useState } from 'react';

export function Photo(props: { src: string; alt: string; caption: string }) {
  const [big, setBig] = useState(false);
  return (
    <figure
      className={big ? 'fixed inset-0 z-40 flex flex-col items-center justify-center bg-neutral-950/90 p-3' : 'min-w-0'}
    >
      <button
        type="button"
        onClick={() => setBig((b) => !b)}
        aria-label={big ? `Close the full-size ${props.caption}` : `Show the ${props.caption} full size`}
        className="block max-h-full max-w-full focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-800"
      >
        {/* eslint-disable-next-line @next/next/no-img-element -- a private, per-view URL: not for the image optimiser */}
        <img
          src={props.src}
          alt={props.alt}
          referrerPolicy="no-referrer"
          className={
            big
              ? 'max-h-[85vh] max-w-full rounded object-contain'
              : 'aspect-[4/3] w-full rounded-md border border-neutral-200 bg-neutral-100 object-contain'
          }
        />
      </button>
      <figcaption className={big ? 'mt-2 text-sm text-white' : 'mt-1 text-sm text-neutral-800'}>
        {props.caption}
      </figcaption>
    </figure>
  );
}
