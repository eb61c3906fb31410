import { toast } from "sonner";
import { ProductError } from "./productError";

/** A failure toast: the client message of SPEC §8 as its title, with the server's reason (the
 * catalogue's message for its code) beneath when it says more. */
export function failureToast(title: string, error: unknown): void {
  const reason = error instanceof ProductError && error.status !== null ? error.message : title;
  toast.error(title, reason !== title ? { description: reason } : {});
}
