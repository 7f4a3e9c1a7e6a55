/**
 * @open-verify/embed/react: `<Verification url={…} onComplete={…} />`, the same embedded flow as a React component.
 * Inline by default (it fills its element: give it a height), or `modal` for the SDK's modal. The callbacks may
 * change between renders; a new `url` opens that verification instead.
 */
import { useEffect, useRef, type CSSProperties } from 'react';
import { openVerification, type OpenVerificationOptions } from './index.js';

export type VerificationProps = Omit<OpenVerificationOptions, 'container'> & {
  modal?: boolean;
  className?: string;
  style?: CSSProperties;
};

export function Verification(props: VerificationProps) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  useEffect(() => {
    latest.current = props;
  });
  const { url, modal, newTab } = props;
  useEffect(() => {
    const h = openVerification({
      url,
      newTab,
      labels: latest.current.labels,
      container: modal ? undefined : (host.current ?? undefined),
      onEvent: (e) => latest.current.onEvent?.(e),
      onComplete: (e) => latest.current.onComplete?.(e),
      onCancel: (e) => latest.current.onCancel?.(e),
      onError: (e) => latest.current.onError?.(e),
    });
    return () => h.close();
  }, [url, modal, newTab]);
  return modal ? null : <div ref={host} className={props.className} style={props.style ?? { height: 760 }} />;
}

export * from './index.js';
