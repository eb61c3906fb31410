import { Toaster } from "sonner";
import { useToastTopOffset } from "../../components/toastClearance";

const RIGHT_PX = 16;

/** SPEC §2/§9: top right, at most 5 visible, each closable, 4000 ms (sonner's 356 px width); below
 * the header and the page's top controls, so a toast never covers one (phones too). */
export function Toasts() {
  const top = useToastTopOffset();
  const offset = { top, right: RIGHT_PX };
  return (
    <Toaster
      position="top-right"
      offset={offset}
      mobileOffset={{ ...offset, left: RIGHT_PX }}
      visibleToasts={5}
      closeButton
      duration={4000}
      richColors
    />
  );
}
