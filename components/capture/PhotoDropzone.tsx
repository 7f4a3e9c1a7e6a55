'use client';
/**
 * The file-upload fallback (camera denied, no camera, in-app browser, or the user's choice): a dropzone
 * from @uploadthing/react, used as UI only (the file goes to the capture endpoint, never to UploadThing).
 * Loaded on demand by PhotoStep, so the camera path does not download it.
 */
import { useDropzone } from '@uploadthing/react';

export function PhotoDropzone(props: { label: string; hint: string; onFile: (file: File) => void }) {
  const { getRootProps, getInputProps, isDragActive } = useDropzone({
    accept: { 'image/jpeg': [], 'image/png': [], 'image/webp': [] },
    multiple: false,
    maxFiles: 1,
    onDrop: (files: File[]) => {
      if (files[0]) props.onFile(files[0]);
    },
  });
  return (
    <div
      {...getRootProps()}
      className={`flex min-h-40 cursor-pointer flex-col items-center justify-center rounded-lg border-2 border-dashed p-6 text-center ${isDragActive ? 'border-blue-700 bg-blue-50' : 'border-neutral-400'}`}
    >
      <input {...getInputProps()} aria-label={props.label} data-testid="file-input" />
      <p className="font-medium">{props.label}</p>
      <p className="text-sm text-neutral-600">{props.hint}</p>
    </div>
  );
}
