import type { RDKitModule } from "@polyforge/contracts/smiles/rdkit";
import { useQuery } from "@tanstack/react-query";

/**
 * RDKit (≈7 MB of WebAssembly) is fetched only when a page that draws or checks SMILES opens: both
 * the loader and the .wasm asset URL are dynamic imports, so they stay out of the main chunk.
 */
async function loadBrowserRDKit(): Promise<RDKitModule> {
  const [{ loadRDKit }, { default: wasmUrl }] = await Promise.all([
    import("@polyforge/contracts/smiles/rdkit"),
    import("@rdkit/rdkit/RDKit_minimal.wasm?url"),
  ]);
  return loadRDKit({ wasmUrl });
}

/** The shared RDKit module once loaded; `isError` when the .wasm could not be fetched. `enabled`
 * false waits (nothing is fetched) until a caller needs it. */
export function useRDKit(enabled = true) {
  return useQuery({
    queryKey: ["rdkit"],
    queryFn: loadBrowserRDKit,
    staleTime: Infinity,
    gcTime: Infinity,
    retry: 1,
    enabled,
  });
}
