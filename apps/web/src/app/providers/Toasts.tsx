import { Toaster } from "sonner";

/** SPEC §2/§9: top right, at most 5 visible, each closable, 4000 ms (sonner's 356 px width). */
export function Toasts() {
  return <Toaster position="top-right" visibleToasts={5} closeButton duration={4000} richColors />;
}
