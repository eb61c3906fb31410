import type { UseMutationOptions } from "@tanstack/react-query";

/** What a feature's mutation hook takes from its caller: the caller's reactions (toasts, navigation).
 * The hook keeps the request and the cache work (invalidation, cache writes) to itself and runs the
 * caller's onSuccess after it. */
export type MutationConfig<TData, TVariables = void> = Omit<UseMutationOptions<TData, Error, TVariables>, "mutationFn">;
