import { useEffect, useState } from "react";

/**
 * Toasts stay top right (SPEC §2) but below the controls at the top of the page: a page marks its
 * row of top controls (the builder's stepper and Clear draft, a catalogue's filter and search) with
 * `toastClearance`, and the toast area starts under the lowest marked row still on screen.
 */
const CLEARANCE_ATTRIBUTE = "data-toast-clearance";
export const toastClearance = { [CLEARANCE_ATTRIBUTE]: true } as const;

/** Under the 60 px header and its user menu, whatever the page. */
export const HEADER_CLEARANCE_PX = 72;
const GAP_PX = 12;

/** The toast area's top: under the header, and under every marked row whose bottom is on screen. */
export function toastTopOffset(root: ParentNode = document): number {
  let top = HEADER_CLEARANCE_PX;
  for (const element of root.querySelectorAll(`[${CLEARANCE_ATTRIBUTE}]`)) {
    const { bottom } = element.getBoundingClientRect();
    if (bottom > 0) top = Math.max(top, Math.ceil(bottom) + GAP_PX);
  }
  return top;
}

/** toastTopOffset, measured again whenever the page changes, scrolls or is resized. */
export function useToastTopOffset(): number {
  const [top, setTop] = useState(HEADER_CLEARANCE_PX);
  useEffect(() => {
    // At most one measure a frame: a busy page (the structure editor) mutates many times in one.
    let frame = 0;
    const measure = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        setTop(toastTopOffset());
      });
    };
    measure();
    // Route changes and pages that finish loading add or move the marked rows.
    const observer = new MutationObserver(measure);
    observer.observe(document.body, { childList: true, subtree: true });
    window.addEventListener("resize", measure);
    window.addEventListener("scroll", measure, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      window.removeEventListener("resize", measure);
      window.removeEventListener("scroll", measure);
    };
  }, []);
  return top;
}
