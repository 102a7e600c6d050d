import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Tooltip } from '@mantine/core';
import classes from './DataTable.module.css';

/**
 * One line of a cell, ended with "…" where it does not fit. Then, and only then, the whole text shows
 * in a tooltip on hover and on keyboard focus (the cell takes focus for it); a screen reader reads the
 * whole text in any case, since only its drawing is cut.
 */
export function TruncatedText({ children, text }: { children: ReactNode; text?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [full, setFull] = useState<string | null>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    // The cell, or a line inside it (a name above its detail), wider than its box.
    const cut = () => [element, ...Array.from(element.querySelectorAll<HTMLElement>('p, div'))].some((box) => box.clientWidth > 0 && box.scrollWidth > box.clientWidth);
    const measure = () => setFull(cut() ? (text ?? element.textContent ?? '') : null);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [text, children]);
  return (
    <Tooltip label={full} disabled={!full} events={{ hover: true, focus: true, touch: true }} multiline maw={480} className={classes.tooltip}>
      <div ref={ref} className={classes.truncate} tabIndex={full ? 0 : undefined} data-truncated={full ? '' : undefined}>
        {children}
      </div>
    </Tooltip>
  );
}
