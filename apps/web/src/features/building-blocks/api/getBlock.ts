import { useQuery } from "@tanstack/react-query";
import { blockQueryOptions } from "../../../lib/api/buildingBlock";

/** One building block. Its request and query options live in lib/api/buildingBlock: the builder
 * (polymer-builder) reads blocks through the same cache. */
export const useBlock = (id: string) => useQuery(blockQueryOptions(id));
