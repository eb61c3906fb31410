import type { Db } from "../../platform/db/database";
import type { UserRow } from "../../platform/identity/schema";

/** Runs once per user, inside the transaction that marks the user provisioned: a module adds the
 * user's sample data here. A failing hook rolls the whole provisioning back (retried next request). */
export type UserProvisionedHook = (tx: Db, user: UserRow) => Promise<void>;

const hooks = new Set<UserProvisionedHook>();

/** Registers a hook; registering the same function again is a no-op. */
export function onUserProvisioned(hook: UserProvisionedHook): void {
  hooks.add(hook);
}

export function userProvisionedHooks(): readonly UserProvisionedHook[] {
  return [...hooks];
}
