import { Toaster } from "sonner";

/** Keeps toasts below the 60 px header so they never cover the user menu. */
const OFFSET_BELOW_HEADER = { top: 72, right: 16 };

/** SPEC §2/§9: top right, at most 5 visible, each closable, 4000 ms (sonner's 356 px width). */
export function Toasts() {
  return (
    <Toaster
      position="top-right"
      offset={OFFSET_BELOW_HEADER}
      visibleToasts={5}
      closeButton
      duration={4000}
      richColors
    />
  );
}
